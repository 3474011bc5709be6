package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rs/zerolog"
)

// benchStore loads one definition into a fresh store.
func benchStore(b *testing.B, yamlText string) *Store {
	b.Helper()
	dags, err := loadDAGs(fstest.MapFS{"d.yaml": {Data: []byte(yamlText)}}, "bench")
	if err != nil {
		b.Fatal(err)
	}
	store := storeWith(b, dags)
	return store
}

// BenchmarkSchedulerTriggerToFirstTask measures the time from a trigger
// returning to its first task running, with the real loop woken by the
// trigger's kick. Reported: the median, and the p99.
func BenchmarkSchedulerTriggerToFirstTask(b *testing.B) {
	store := benchStore(b, `
dag_id: d
schedule_interval: null
start_date: 2020-01-01
max_active_runs: 100000
tasks:
  - {task_id: first, operator: PythonOperator}
`)
	started := make(chan time.Time, 1)
	sched := newScheduler(schedulerOptions{
		Store: store, Edition: edition2, Logger: zerolog.Nop(), Interval: time.Second, Parallelism: 32,
		RunTask: func(ctx context.Context, job taskJob) taskOutcome {
			started <- time.Now()
			return taskOutcome{state: TaskSuccess}
		},
	})
	sched.start()
	defer sched.stop()
	api := newAirflowAPI(&operations{store: store, edition: edition2, now: time.Now, kick: sched.Kick})
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		body := fmt.Sprintf(`{"run_id": "r%d", "execution_date": "%s"}`, i, isoFormat(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i)*time.Second)))
		if _, err := api.TriggerDAG("d", []byte(body)); err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		lat = append(lat, (<-started).Sub(t0))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "µs-median")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "µs-p99")
}

// BenchmarkSchedulerEmptyOperators measures task instances completed per
// second for 1,000 runs of a 10-task DAG of EmptyOperators (a fan-out and
// a chain), scheduler passes called back to back.
func BenchmarkSchedulerEmptyOperators(b *testing.B) { benchEmptyOperators(b, edition2) }

// BenchmarkSchedulerEmptyOperators3 is BenchmarkSchedulerEmptyOperators
// in edition 3, whose task instances have ids (the derived orders a try's
// start and end keep).
func BenchmarkSchedulerEmptyOperators3(b *testing.B) { benchEmptyOperators(b, edition3) }

func benchEmptyOperators(b *testing.B, ed edition) {
	var tasks strings.Builder
	tasks.WriteString("  - {task_id: t0, operator: EmptyOperator, downstream: [t1, t2, t3, t4]}\n")
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(&tasks, "  - {task_id: t%d, operator: EmptyOperator, downstream: [t5]}\n", i)
	}
	for i := 5; i < 9; i++ {
		fmt.Fprintf(&tasks, "  - {task_id: t%d, operator: EmptyOperator, downstream: [t%d]}\n", i, i+1)
	}
	tasks.WriteString("  - {task_id: t9, operator: EmptyOperator}\n")
	def := "dag_id: d\nschedule_interval: null\nstart_date: 2020-01-01\nmax_active_runs: 1000\nmax_active_tasks: 100000\ntasks:\n" + tasks.String()
	const runs = 1000
	var total time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		store := benchStore(b, def)
		sched := newScheduler(schedulerOptions{Store: store, Edition: ed, Logger: zerolog.Nop(), Parallelism: 32})
		api := newAirflowAPI(&operations{store: store, edition: ed, now: time.Now})
		base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
		for r := 0; r < runs; r++ {
			body := fmt.Sprintf(`{"run_id": "r%d", "execution_date": "%s"}`, r, isoFormat(base.Add(time.Duration(r)*time.Minute)))
			if _, err := api.TriggerDAG("d", []byte(body)); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		start := time.Now()
		for pass := 0; ; pass++ {
			if err := sched.tick(time.Now()); err != nil {
				b.Fatal(err)
			}
			left, err := store.RunsInState(RunRunning)
			if err != nil {
				b.Fatal(err)
			}
			queued, _ := store.RunsInState(RunQueued)
			if len(left)+len(queued) == 0 {
				break
			}
			if pass > 1000 {
				b.Fatalf("%d runs still running after 1000 passes", len(left))
			}
		}
		total += time.Since(start)
		b.StopTimer()
		success, _ := store.RunsInState(RunSuccess)
		if len(success) != runs {
			b.Fatalf("%d runs succeeded, want %d", len(success), runs)
		}
		sched.stop()
		b.StartTimer()
	}
	b.ReportMetric(float64(runs*10*b.N)/total.Seconds(), "task-instances/s")
}
