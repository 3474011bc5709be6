# A helper module beside the DAG files: importable because the DAG folder
# is on sys.path; passed over as a DAG file (no "dag" word... safe mode).
TEAM = "data-team"
