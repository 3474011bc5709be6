"""airlite's DAG folder reader: one process reads every Python DAG file
airlite hands it, the way Airflow's DagBag does (2.10.3
airflow/models/dagbag.py process_file, _load_modules_from_file,
_process_modules; 1.10.15 airflow/models/dagbag.py process_file).

stdin: one JSON request {"edition", "dag_folder", "files", "timeout",
"memory_bytes", "variables"}. stdout: one JSON line per file, first
{"start": path}, then {"file": path, "dags": [...], "import_error": text
or null, "skipped": bool}; then {"done": true}. What DAG files print goes
to stderr.
"""
# Only what every user needs is imported here: a task's process imports
# this module for module_name alone, and each import is start-up time.
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    request = json.loads(sys.stdin.read())
    edition = request.get("edition", "2")
    os.environ["AIRLITE_EDITION"] = edition
    folder = request.get("dag_folder") or ""
    os.environ["AIRLITE_DAGS_FOLDER"] = folder
    limit = int(request.get("memory_bytes") or 0)
    # On Windows (no resource module) airlite's Job Object bounds the
    # process instead (scheduler_procs_windows.go startGroup).
    if limit > 0 and os.name != "nt":
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    # The answers go to a copy of stdout; what DAG files print, to stderr.
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    sys.path.insert(0, HERE)
    # Airflow puts the DAG folder on sys.path (2.10.3 settings.py
    # prepare_syspath), so a DAG file's helper modules import.
    if folder and folder not in sys.path:
        sys.path.append(folder)
    try:
        import pendulum  # noqa: F401
    except ImportError:
        sys.path.append(os.path.join(HERE, "airlite_compat"))
    import airflow  # noqa: F401  the edition's finder goes in first
    _memoize_operator_arguments()
    from airflow.models import variable
    # airlite's variables, as data: Variable.get hands them back as strings.
    variable._VALUES = dict(request.get("variables") or {})

    reader = Reader(edition, folder, float(request.get("timeout") or 30.0))
    for path in request.get("files") or []:
        out.write(json.dumps({"start": path}) + "\n")
        out.flush()
        result = reader.process_file(path)
        out.write(json.dumps(result, allow_nan=False, default=str) + "\n")
        out.flush()
    out.write(json.dumps({"done": True}) + "\n")
    out.flush()


def _memoize_operator_arguments():
    """The arguments an operator class accepts are worked out from its
    __init__ signatures at every operator made; in a folder of generated
    DAGs that was a third of the reading. A class's signatures do not
    change once made, so the answer is kept per class, for this reader
    process only."""
    from airflow.models import baseoperator
    accepted = getattr(baseoperator, "_accepted", None)
    if accepted is None:
        return
    cache = {}

    def memo(cls):
        hit = cache.get(cls)
        if hit is None:
            names, required = accepted(cls)
            hit = cache[cls] = (frozenset(names), frozenset(required))
        # Callers may add to what they get: they get their own copies.
        return set(hit[0]), set(hit[1])

    baseoperator._accepted = memo


def might_contain_dag(path, edition):
    """Safe mode: 2.10.3 utils/file.py:348-365 (both words, any case; a zip
    file may); 1.10.15 utils/dag_processing.py:360-365 ("DAG" and
    "airflow" as written)."""
    import zipfile
    if zipfile.is_zipfile(path):
        return True
    with open(path, "rb") as f:
        content = f.read()
    if edition == "1.10":
        return b"DAG" in content and b"airflow" in content
    content = content.lower()
    return b"dag" in content and b"airflow" in content


def module_name(path):
    # 2.10.3 utils/file.py:388-394
    import hashlib
    digest = hashlib.sha1(path.encode("utf-8")).hexdigest()
    stem = os.path.splitext(os.path.basename(path))[0]
    return "unusual_prefix_%s_%s" % (digest, re.sub(r"[.-]", "_", stem))


class Reader:
    def __init__(self, edition, folder, timeout):
        self.edition = edition
        self.folder = folder
        self.timeout = timeout
        self.seen = {}  # dag_id -> fileloc, across the folder

    def _error_text(self, exc):
        if self.edition == "1.10":
            return str(exc)
        import traceback
        # dagbag_import_error_tracebacks on, traceback depth 2
        return traceback.format_exc(limit=-2)

    def _timeout_message(self, path):
        if self.edition == "1.10":
            return "Timeout, PID: %d" % os.getpid()
        docs = "https://airflow.apache.org/docs/apache-airflow/2.10.3/"
        return ("DagBag import timeout for %s after %ss.\n"
                "Please take a look at these docs to improve your DAG import time:\n"
                "* %sbest-practices.html#top-level-python-code\n"
                "* %sbest-practices.html#reducing-dag-complexity" % (path, self.timeout, docs, docs))

    def process_file(self, path):
        import importlib.machinery
        import importlib.util
        import signal
        from airflow.exceptions import AirflowTaskTimeout
        from airflow.models.dag import DagContext
        from airflow._airlite.task_group import TaskGroupContext
        result = {"file": path, "dags": [], "import_error": None, "skipped": False}
        try:
            if not might_contain_dag(path, self.edition):
                result["skipped"] = True
                return result
        except OSError as e:
            result["import_error"] = "%s: %s" % (type(e).__name__, e)
            return result
        name = module_name(path)
        sys.modules.pop(name, None)
        DagContext._stack.clear()
        TaskGroupContext._stack.clear()
        DagContext.autoregistered_dags.clear()
        DagContext.current_autoregister_module_name = name
        message = self._timeout_message(path)

        def on_alarm(signum, frame):
            raise AirflowTaskTimeout(message)

        module = None
        # Windows has no SIGALRM: there airlite's watchdog ends the reader
        # at the same bound and gives the file the same message
        # (dag_python.go runOnce), then reads the files after it anew.
        alarm = hasattr(signal, "SIGALRM")
        if alarm:
            signal.signal(signal.SIGALRM, on_alarm)
            signal.setitimer(signal.ITIMER_REAL, self.timeout)
        try:
            try:
                loader = importlib.machinery.SourceFileLoader(name, path)
                spec = importlib.util.spec_from_loader(name, loader)
                module = importlib.util.module_from_spec(spec)
                sys.modules[name] = module
                loader.exec_module(module)
            finally:
                if alarm:
                    signal.setitimer(signal.ITIMER_REAL, 0)
        except (Exception, AirflowTaskTimeout) as e:
            DagContext.autoregistered_dags.clear()
            result["import_error"] = self._error_text(e)
            return result
        except MemoryError as e:
            result["import_error"] = self._error_text(e)
            return result
        self._collect(module, path, result)
        return result

    def _collect(self, module, path, result):
        from airflow.models.dag import DAG, DagContext
        import airlite_serialize
        found = {}
        for value in list(module.__dict__.values()):
            if isinstance(value, DAG):
                found[id(value)] = value
        for dag, _mod in list(DagContext.autoregistered_dags):
            found[id(dag)] = dag
        DagContext.current_autoregister_module_name = None
        DagContext.autoregistered_dags.clear()
        # A sub-DAG made in a with-block registers itself too; it is bagged
        # through its parent (found_dags += dag.subdags), once.
        for dag in sorted((d for d in found.values() if d.parent_dag is None), key=lambda d: d.dag_id):
            dag.fileloc = module.__file__
            try:
                self._bag(dag, path)
            except Exception as e:
                text = str(e) if self.edition == "1.10" else "%s: %s" % (type(e).__name__, e)
                if self.edition == "1.10" and type(e).__name__ == "AirflowTimetableInvalid":
                    text = "Invalid Cron expression: " + str(e)
                result["import_error"] = text
                continue
            for d in [dag] + dag.subdags:
                d.fileloc = module.__file__
                try:
                    result["dags"].append(airlite_serialize.serialize_dag(d, self.folder))
                except Exception as e:
                    result["import_error"] = "SerializationError: Failed to serialize DAG %r: %s" % (d.dag_id, e)

    def _bag(self, dag, path):
        from airflow.exceptions import AirflowDagDuplicatedIdException, AirflowTimetableInvalid
        if self.edition == "1.10":
            dag.check_cycle()
            for d in dag.subdags:
                d.check_cycle()
            if isinstance(dag.schedule_interval, str) and dag.schedule_interval not in ("@once", "@continuous"):
                from airflow._airlite.cron import check_cron
                from airflow.utils.dates import cron_presets
                problem = check_cron(cron_presets.get(dag.schedule_interval, dag.schedule_interval))
                if problem:
                    raise AirflowTimetableInvalid(problem)
        else:
            dag.validate()
            dag.check_cycle()
            for d in dag.subdags:
                d.check_cycle()
        for d in [dag] + dag.subdags:
            prev = self.seen.get(d.dag_id)
            if prev is not None and prev != d.fileloc and self.edition != "1.10":
                e = AirflowDagDuplicatedIdException(
                    "Ignoring DAG %s from %s - also found in %s" % (d.dag_id, d.fileloc, prev))
                raise e
        for d in [dag] + dag.subdags:
            self.seen[d.dag_id] = d.fileloc


if __name__ == "__main__":
    main()
