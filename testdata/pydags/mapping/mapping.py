"""Dynamic task mapping as Airflow 2.10.3 runs it: literal lists and
dicts, an upstream's XCom, expand_kwargs, a cross product, an empty
expansion, a failing instance and the trigger rules that count them."""
import pendulum
from airflow import DAG
from airflow.decorators import task
from airflow.operators.empty import EmptyOperator
from airflow.operators.python import PythonOperator


def add(x, y):
    return x + y


with DAG(dag_id="py_map", schedule=None, start_date=pendulum.datetime(2024, 1, 1, tz="UTC")) as dag:

    @task
    def numbers():
        return [1, 2, 3]

    @task(map_index_template="{{ task.op_kwargs['n'] }}")
    def square(n):
        return n * n

    @task
    def total(values):
        return sum(values)

    @task
    def pair(a, b):
        return "%s%s" % (a, b)

    @task
    def item(kv):
        return "%s=%s" % tuple(kv)

    @task
    def collect(values):
        return sorted(values)

    @task
    def never(x):
        return x

    squares = square.expand(n=numbers())
    total(squares)
    collect.override(task_id="pairs")(pair.partial(b="!").expand(a=["x", "y"]))
    cross = pair.override(task_id="cross").expand(a=[1, 2], b=["a", "b", "c"])
    collect.override(task_id="crossed")(cross)
    collect.override(task_id="items")(item.expand(kv={"k": 1, "j": 2}))
    adds = PythonOperator.partial(task_id="adds", python_callable=add).expand_kwargs(
        [{"op_kwargs": {"x": 1, "y": 2}}, {"op_kwargs": {"x": 10, "y": 20}}])
    after_empty = EmptyOperator(task_id="after_empty")
    never.expand(x=[]) >> after_empty


with DAG(dag_id="py_map_fail", schedule=None, start_date=pendulum.datetime(2024, 1, 1, tz="UTC")) as fail_dag:

    @task
    def maybe(n):
        if n == 2:
            raise ValueError("two")
        return n

    mapped = maybe.expand(n=[1, 2, 3])
    mapped >> EmptyOperator(task_id="one_ok", trigger_rule="one_success")
    mapped >> EmptyOperator(task_id="all_ok")
    mapped >> EmptyOperator(task_id="done", trigger_rule="all_done")


with DAG(dag_id="py_map_pull", schedule=None, start_date=pendulum.datetime(2024, 1, 1, tz="UTC")) as pull_dag:

    @task
    def emit(n):
        return n * 10

    @task
    def puller(ti=None):
        # ti.xcom_pull of a mapped task: its instances' values by map_index
        # (2.10.3 _xcom_pull), one of them with map_indexes.
        return {"all": ti.xcom_pull(task_ids="emit"), "one": ti.xcom_pull(task_ids="emit", map_indexes=1),
                "some": ti.xcom_pull(task_ids="emit", map_indexes=[2, 0])}

    emit.expand(n=[1, 2, 3]) >> puller()


with DAG(dag_id="py_map_ten", schedule=None, start_date=pendulum.datetime(2024, 1, 1, tz="UTC")) as ten_dag:

    @task
    def one(n):
        return n

    one.expand(n=list(range(10)))


with DAG(dag_id="py_map_retry", schedule=None, start_date=pendulum.datetime(2024, 1, 1, tz="UTC"),
         default_args={"retries": 1, "retry_delay": __import__("datetime").timedelta(0)}) as retry_dag:

    @task
    def flaky(n, ti=None):
        if n == 2 and ti.try_number == 1:
            raise ValueError("first try of two")
        return n

    @task
    def gather(values):
        return values

    gather(flaky.expand(n=[1, 2, 3]))


with DAG(dag_id="py_map_bash", schedule=None, start_date=pendulum.datetime(2024, 1, 1, tz="UTC")) as bash_dag:
    from airflow.operators.bash import BashOperator

    BashOperator.partial(task_id="echo").expand(bash_command=["echo 1", "echo 2"]) >> EmptyOperator.partial(
        task_id="nothing").expand(doc_md=["a", "b", "c"])
