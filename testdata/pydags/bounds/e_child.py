# airflow dag: leaves a process behind, which must end with the reader
import os, subprocess
child = subprocess.Popen(["sleep", "600"])
with open(os.environ["AIRLITE_TEST_PIDFILE"], "w") as f:
    f.write(str(child.pid))
