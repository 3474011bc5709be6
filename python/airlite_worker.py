"""airlite's warm task worker: one long-lived process per interpreter,
edition and DAG folder that has imported the interpreter's site, the
authoring surface and the task runner once, and forks one child per try,
so that a try starts in milliseconds instead of an interpreter's start
(Airflow's standard task runner forks the same way: 2.10.3
airflow/task/task_runner/standard_task_runner.py _start_by_fork).

argv: EDITION DAG_FOLDER. fd 3: a SOCK_SEQPACKET socket to airlite.
airlite sends {"op": "run", "id", "cwd", "env"} with four descriptors
(the try's stdin, its log, the channel from airlite, the channel to
airlite); the worker forks and answers {"id", "pid"} (or {"id",
"error"}). When the child ends it says {"exited": pid, "status"}, and keeps
the child unreaped (a zombie keeps its pid and group id from being handed
out again) until airlite, having ended what is left of the try's group,
sends {"op": "reap", "pid"}. The end of the socket (airlite stopped or
died) ends every child's group and the worker.

The child is the try: a new session (its own process group, as every try
has), killed when the worker dies (PR_SET_PDEATHSIG), with the try's
descriptors as 0-4, then airlite_task.main() as in a try of its own
process. The DAG file is imported in the child, after the fork, so a file
changed since is never served from an earlier import. Requests carry data
only: the request itself comes on the child's stdin as JSON.
"""
import json
import os
import select
import signal
import socket
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# What a try imports anyway, imported once here (a module missing from an
# edition's surface is left to the child).
_WARM = (
    "airflow", "airflow.exceptions", "airflow.models", "airflow.models.dag", "airflow.models.baseoperator",
    "airflow.models.variable", "airflow._airlite.python", "airflow.decorators", "airflow.operators.python",
    "airflow.operators.bash", "airflow.operators.empty", "airflow.utils.task_group", "airflow.utils.dates",
    "airflow.sdk", "importlib.machinery", "importlib.util", "hashlib", "resource", "datetime", "atexit",
    "fcntl", "traceback", "inspect",
)
PR_SET_PDEATHSIG = 1


def _prctl():
    """prctl from the C library, or None where there is none."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl
    except (OSError, AttributeError):
        return None


def main():
    edition, folder = sys.argv[1], sys.argv[2]
    os.environ["AIRLITE_EDITION"] = edition
    os.environ["AIRLITE_DAGS_FOLDER"] = folder
    sys.path.insert(0, HERE)
    if folder and folder not in sys.path:
        sys.path.append(folder)
    try:
        import pendulum  # noqa: F401
    except ImportError:
        sys.path.append(os.path.join(HERE, "airlite_compat"))
    import importlib
    for name in _WARM:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001  the child imports it again and says why
            pass
    import airlite_task  # noqa: F401
    # Started with -B and without a PYTHONPYCACHEPREFIX, the worker read
    # the interpreter's own bytecode for what it imported (a prefix would
    # have compiled the standard library again, once per airlite
    # process). From here on, what a try imports (its DAG file first) is
    # compiled once into airlite's folder, never beside the DAG files.
    prefix = os.environ.pop("AIRLITE_PYCACHE", "")
    if prefix:
        sys.pycache_prefix = prefix
        sys.dont_write_bytecode = False
    prctl = _prctl()
    sock = socket.socket(fileno=3)
    # Warm: airlite's ready line waits for this (bounded).
    sock.send(json.dumps({"warm": True}).encode())
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    me = os.getpid()
    running = set()   # children not yet reported ended
    ended = set()     # reported, waiting for airlite's reap
    while True:
        ready, _, _ = select.select([sock, wake_r], [], [])
        if wake_r in ready:
            try:
                while os.read(wake_r, 512):
                    pass
            except BlockingIOError:
                pass
        if sock in ready:
            try:
                msg, fds, _flags, _addr = socket.recv_fds(sock, 1 << 16, 8)
            except OSError:
                msg, fds = b"", []
            if not msg:
                for pid in running | ended:
                    try:
                        os.killpg(pid, signal.SIGKILL)
                    except OSError:
                        pass
                return
            req = json.loads(msg)
            if req.get("op") == "run":
                sys.stdout.flush()
                sys.stderr.flush()
                try:
                    if len(fds) != 4:
                        raise OSError("%d descriptors, want 4" % len(fds))
                    pid = os.fork()
                except OSError as e:
                    for fd in fds:
                        os.close(fd)
                    sock.send(json.dumps({"id": req["id"], "error": "start the try: %s" % e}).encode())
                    continue
                if pid == 0:
                    _child(req, fds, sock, (wake_r, wake_w), prctl, me)
                for fd in fds:
                    os.close(fd)
                running.add(pid)
                sock.send(json.dumps({"id": req["id"], "pid": pid}).encode())
            elif req.get("op") == "reap":
                pid = int(req["pid"])
                if pid in ended:
                    ended.discard(pid)
                    os.waitpid(pid, 0)
        for pid in list(running):
            info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            if info is None:
                continue
            running.discard(pid)
            ended.add(pid)
            status = info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
            sock.send(json.dumps({"exited": pid, "status": status}).encode())


def _child(req, fds, sock, wake, prctl, worker):
    """The try: never returns."""
    code = 1
    try:
        os.setsid()
        if prctl is not None:
            prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != worker:
            os._exit(1)  # the worker died before the signal was asked for
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        import atexit
        import fcntl
        atexit._clear()
        sock.detach()  # fd 3 becomes the channel below
        for fd in wake:
            os.close(fd)
        # Out of 0-4's way first, then into place.
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in fds]
        for fd in fds:
            os.close(fd)
        for fd, target in zip(high, ((0,), (1, 2), (3,), (4,))):
            for t in target:
                os.dup2(fd, t)
            os.close(fd)
        os.chdir(req["cwd"])
        os.environ.update(req.get("env") or {})
        sys.argv = [os.path.join(HERE, "airlite_task.py")]  # as in a try of its own process
        import airlite_task
        airlite_task.main()
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except BaseException:  # noqa: B902  the try's log says what happened
        import traceback
        traceback.print_exc()
    finally:
        try:
            import atexit
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


if __name__ == "__main__":
    main()
