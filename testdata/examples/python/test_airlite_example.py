import requests


def test_trigger_runs_to_success(airlite):
    api = f"{airlite}/api/experimental"
    resp = requests.post(
        f"{api}/dags/example_python_operator/dag_runs",
        json={"conf": {"customer": "acme"}},
    )
    assert resp.status_code == 200
    run_id = resp.json()["run_id"]

    done = requests.get(
        f"{airlite}/_airlite/dags/example_python_operator/dag_runs/{run_id}/wait",
        params={"timeout": "30s"},
    )
    assert done.json()["state"] == "success"


def test_unknown_dag_is_a_404_as_in_airflow(airlite):
    resp = requests.post(f"{airlite}/api/experimental/dags/nope/dag_runs", json={})
    assert resp.status_code == 404
    assert resp.json() == {"error": "Dag id nope not found in DagModel"}


def test_client_error_handling_with_a_forced_failure(airlite):
    api = f"{airlite}/api/experimental"
    run_id = requests.post(f"{api}/dags/tutorial/dag_runs", json={}).json()["run_id"]
    requests.post(
        f"{airlite}/_airlite/dags/tutorial/dag_runs/{run_id}/state",
        json={"state": "failed"},
    ).raise_for_status()
    runs = requests.get(f"{api}/dags/tutorial/dag_runs", params={"state": "failed"}).json()
    assert [r["run_id"] for r in runs] == [run_id]
