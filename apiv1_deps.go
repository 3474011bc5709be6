package main

// The stable API's task-instance dependencies: Airflow 2.10.3
// airflow/api_connexion/endpoints/task_instance_endpoint.py:702-761; the
// checks are the operation's (ops_deps.go).

// V1GetTaskInstanceDependencies is GET …/taskInstances/{task_id}/dependencies
// and its {map_index} variant: for a task instance with no state or
// scheduled, its failed dependencies by name; for any other, none.
func (s *server) V1GetTaskInstanceDependencies(dagID, runID, taskID string, mapIndex int64) (map[string]any, error) {
	deps, err := s.ops.taskInstanceDependencies(dagID, runID, taskID, mapIndex)
	if err != nil {
		return nil, v1ResourceError(err)
	}
	items := make([]any, len(deps))
	for i, d := range deps {
		items[i] = map[string]any{"name": d.name, "reason": d.reason}
	}
	return map[string]any{"dependencies": items}, nil
}
