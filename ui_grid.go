package main

// The grid on a DAG's page, as Airflow's Grid view shows it: the recent
// runs as columns (oldest first), the DAG's tasks as rows, each cell the
// task instance's state, linking to that run's page at the task's log.

// gridView is the grid's content.
type gridView struct {
	Runs []gridRun
	Rows []gridRow
}

type gridRun struct {
	RunID   string
	Date    string
	State   string
	URL     string
	Current bool
}

type gridRow struct {
	TaskID string
	Cells  []gridCell
}

type gridCell struct {
	RunID string
	State string
	Try   int
	URL   string // the run's page at the task's log; "" when it has not run
}

// buildGrid fills the grid for the tasks of the run page's task list and
// runs, given the task instances of each run by task id.
func buildGrid(tasks []*taskRow, runs []runSquare, tis []map[string]*TaskInstance) *gridView {
	if len(runs) == 0 {
		return nil
	}
	g := &gridView{}
	for _, r := range runs {
		g.Runs = append(g.Runs, gridRun{RunID: r.RunID, Date: r.Date, State: r.State, URL: r.URL, Current: r.Current})
	}
	for _, t := range tasks {
		row := gridRow{TaskID: t.TaskID}
		for i, r := range runs {
			c := gridCell{RunID: r.RunID, State: "none"}
			if ti := tis[i][t.TaskID]; ti != nil {
				if ti.State != TaskNone {
					c.State = string(ti.State)
				}
				c.Try = ti.TryNumber
				if ti.TryNumber > 0 {
					c.URL = r.URL + "#log-" + t.TaskID
				}
			}
			row.Cells = append(row.Cells, c)
		}
		g.Rows = append(g.Rows, row)
	}
	return g
}
