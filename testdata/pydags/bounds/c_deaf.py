# airflow dag: ignores Python's alarm, so only the Go side's bound ends it
import signal, time
signal.signal(signal.SIGALRM, signal.SIG_IGN)
time.sleep(600)
