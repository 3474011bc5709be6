package main

import (
	"errors"
	"slices"
	"time"
)

// clearSelection gathers the runs POST /dags/{dag_id}/clearTaskInstances
// reaches, each once, and which of their tasks.
type clearSelection struct {
	start, end *time.Time // logical dates, inclusive; nil: no bound
	// undated says that runs without a logical date are in range: the
	// request and its run set no bound (DAG.clear compares
	// DagRun.logical_date with its bounds, and NULL is in no range).
	undated bool
	subdags bool   // include_subdags
	runID   string // "": every run in range; else this run alone
	targets []clearTarget
	seen    map[string]bool // dag_id + "\x00" + run_id
}

// clearTarget is a run whose task instances the clear may reach.
type clearTarget struct {
	dagID string
	run   *DagRun
	tasks []string // nil: every task
}

// addClearTargets adds dag's runs in range, limited to tasks (nil: every
// task) and to the request's taskIDs (nil: no limit). With subdags and no
// taskIDs it also adds the runs, at the same dates, of the sub-DAGs that
// those tasks run and of theirs (Airflow 2.10.3
// airflow/models/dag.py:1969-1975, :1985-1986).
func (o *operations) addClearTargets(sel *clearSelection, dag *DAG, tasks, taskIDs []string) error {
	limit := tasks
	switch {
	case tasks == nil:
		limit = taskIDs
	case taskIDs != nil:
		limit = []string{}
		for _, id := range tasks {
			if slices.Contains(taskIDs, id) {
				limit = append(limit, id)
			}
		}
		if len(limit) == 0 {
			return nil
		}
	}
	var subIDs []string
	if sel.subdags && taskIDs == nil {
		for _, t := range dag.Tasks {
			if t.Subdag != "" && (tasks == nil || slices.Contains(tasks, t.TaskID)) {
				subIDs = append(subIDs, t.Subdag)
			}
		}
	}
	runs, err := o.store.RunsOfDag(dag.DagID, "")
	if err != nil {
		return err
	}
	for _, run := range runs {
		if sel.runID != "" {
			if run.RunID != sel.runID {
				continue
			}
		} else if run.NoLogicalDate {
			if !sel.undated {
				continue
			}
		} else if !inRange(&run.ExecutionDate, sel.start, sel.end) {
			continue
		}
		sel.add(clearTarget{dag.DagID, run, limit})
		for queue := slices.Clone(subIDs); len(queue) > 0; queue = queue[1:] {
			sub, err := o.store.RunByDate(queue[0], run.ExecutionDate)
			if errors.Is(err, errNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			sel.add(clearTarget{queue[0], sub, nil})
			if subRow, err := o.store.DagByID(queue[0]); err == nil && subRow.Def != nil {
				queue = append(queue, subRow.Def.SubDAGIDs()...)
			}
		}
	}
	return nil
}

func (sel *clearSelection) add(tg clearTarget) {
	key := tg.dagID + "\x00" + tg.run.RunID
	if sel.seen[key] {
		return
	}
	if sel.seen == nil {
		sel.seen = map[string]bool{}
	}
	sel.seen[key] = true
	sel.targets = append(sel.targets, tg)
}

// subDagOperatorOf is the task of parent that runs the sub-DAG subID.
// Airflow 2.10.3 looks for the task named by the second dot-separated
// part of the sub-DAG's id (airflow/models/dag.py:2016-2017), which is
// that task one level down and none in a nested sub-DAG.
func subDagOperatorOf(parent *DAG, subID string) *Task {
	for _, t := range parent.Tasks {
		if t.Subdag == subID {
			return t
		}
	}
	return nil
}
