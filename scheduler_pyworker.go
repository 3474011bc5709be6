package main

// Warm Python workers: a try of a Python callable would cost a whole
// interpreter start (site, the authoring surface, the task runner) before
// its callable runs; a worker (python/airlite_worker.py), one per
// interpreter, edition and DAG folder, has done that once and forks one
// child per try, as Airflow's standard task runner forks (2.10.3
// task/task_runner/standard_task_runner.py _start_by_fork). The child is
// the try as runPython knows it: its own session and process group,
// recorded for the leftover sweep, killed with its group on a stop or a
// timeout, its stdout and stderr the try's log, the same channel on fds 3
// and 4, the DAG file imported after the fork (never a stale import).
// The worker keeps an ended child unreaped until airlite has ended the
// rest of its group, so that no pid or group id airlite kills can have
// been handed out again. A worker that cannot start a try sends runPython
// back to a process of its own.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// maxWorkerMessage bounds one message of the worker's socket (they are
// small: an id and a pid).
const maxWorkerMessage = 64 << 10

// errWorkerGone: the worker ended before it said what became of a try.
var errWorkerGone = errors.New("python worker ended")

// pyWorkerKey names a worker: what the surface it imported depends on.
type pyWorkerKey struct {
	interp, edition, folder string
}

// pyWorkers holds the running workers of one scheduler.
type pyWorkers struct {
	mu      sync.Mutex
	workers map[pyWorkerKey]*pyWorker
	closed  bool
}

// pyWorker is one worker process and its socket.
type pyWorker struct {
	cmd  *exec.Cmd
	conn *net.UnixConn
	done chan struct{} // closed once the worker's socket has ended
	// warm is closed once the worker says it has imported what tries use.
	warm     chan struct{}
	warmOnce sync.Once

	mu      sync.Mutex
	nextID  int
	starts  map[int]chan pyWorkerStart // by request id
	exits   map[int]chan int           // by child pid: its exit status
	writeMu sync.Mutex
}

// pyWorkerStart is the worker's answer to a run request.
type pyWorkerStart struct {
	pid  int
	exit chan int
	err  error
}

// pyWorkerMessage is one message from the worker.
type pyWorkerMessage struct {
	ID     *int   `json:"id"`
	PID    int    `json:"pid"`
	Error  string `json:"error"`
	Exited int    `json:"exited"`
	Status int    `json:"status"`
	Warm   bool   `json:"warm"` // imported what tries use: ready for them
}

// get returns the running worker for key, starting one if there is none.
func (ws *pyWorkers) get(procs *taskProcesses, key pyWorkerKey, prog string) (*pyWorker, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.closed {
		return nil, errors.New("start python worker: the scheduler has stopped")
	}
	if w := ws.workers[key]; w != nil {
		select {
		case <-w.done:
		default:
			return w, nil
		}
	}
	w, err := startPyWorker(procs, key, prog)
	if err != nil {
		return nil, err
	}
	if ws.workers == nil {
		ws.workers = map[pyWorkerKey]*pyWorker{}
	}
	ws.workers[key] = w
	return w, nil
}

// close ends every worker (the scheduler stops, its tries have ended).
func (ws *pyWorkers) close() {
	ws.mu.Lock()
	ws.closed = true
	list := make([]*pyWorker, 0, len(ws.workers))
	for _, w := range ws.workers {
		list = append(list, w)
	}
	ws.workers = nil
	ws.mu.Unlock()
	for _, w := range list {
		w.close()
	}
}

// startPyWorker starts a worker process with one end of a socket pair on
// its fd 3, registered like a try's leader (so that the orphan reaper
// never reaps it) in a group of its own, killed when airlite dies.
func startPyWorker(procs *taskProcesses, key pyWorkerKey, prog string) (*pyWorker, error) {
	fds, err := seqpacketPair()
	if err != nil {
		return nil, fmt.Errorf("start python worker: %w", err)
	}
	mine := os.NewFile(uintptr(fds[0]), "airlite-worker")
	theirs := os.NewFile(uintptr(fds[1]), "airlite-worker-child")
	defer theirs.Close()
	fc, err := net.FileConn(mine)
	mine.Close()
	if err != nil {
		return nil, fmt.Errorf("start python worker: %w", err)
	}
	conn, ok := fc.(*net.UnixConn)
	if !ok {
		fc.Close()
		return nil, fmt.Errorf("start python worker: socket is a %T", fc)
	}
	// -B and no PYTHONPYCACHEPREFIX while it imports: the worker sets the
	// prefix (AIRLITE_PYCACHE) for its tries once it has (airlite_worker.py).
	cmd := exec.Command(key.interp, "-B", filepath.Join(prog, "airlite_worker.py"), key.edition, key.folder)
	cmd.Dir = prog
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "PYTHONPYCACHEPREFIX=") || strings.HasPrefix(kv, "AIRLITE_PYCACHE=")
	}), "AIRLITE_PYCACHE="+filepath.Join(prog, "pycache"))
	cmd.ExtraFiles = []*os.File{theirs}
	cmd.SysProcAttr = taskProcAttr()
	out := &tailBuffer{limit: maxPythonStderr}
	cmd.Stdout, cmd.Stderr = out, out
	if err := procs.start(cmd, 0); err != nil {
		conn.Close()
		return nil, fmt.Errorf("start python worker: %w", err)
	}
	w := &pyWorker{cmd: cmd, conn: conn, done: make(chan struct{}), warm: make(chan struct{}),
		starts: map[int]chan pyWorkerStart{}, exits: map[int]chan int{}}
	go w.listen()
	go func() {
		_ = cmd.Wait()
		procs.ended(cmd.Process.Pid)
		conn.Close() // a worker that died leaves its socket: read ends
	}()
	return w, nil
}

// listen dispatches the worker's messages until its socket ends, then fails
// what still waits on it.
func (w *pyWorker) listen() {
	buf := make([]byte, maxWorkerMessage)
	for {
		n, _, _, _, err := w.conn.ReadMsgUnix(buf, nil)
		if err != nil || n == 0 {
			break
		}
		var m pyWorkerMessage
		if json.Unmarshal(buf[:n], &m) != nil {
			break
		}
		w.mu.Lock()
		switch {
		case m.ID != nil:
			if ch := w.starts[*m.ID]; ch != nil {
				delete(w.starts, *m.ID)
				st := pyWorkerStart{pid: m.PID}
				if m.Error != "" {
					st.err = errors.New(m.Error)
				} else {
					// Before the next message, which may be its exit.
					st.exit = make(chan int, 1)
					w.exits[m.PID] = st.exit
				}
				ch <- st
			}
		case m.Warm:
			w.warmOnce.Do(func() { close(w.warm) })
		case m.Exited > 0:
			if ch := w.exits[m.Exited]; ch != nil {
				delete(w.exits, m.Exited)
				ch <- m.Status
			}
		}
		w.mu.Unlock()
	}
	w.mu.Lock()
	close(w.done)
	for id, ch := range w.starts {
		ch <- pyWorkerStart{err: errWorkerGone}
		delete(w.starts, id)
	}
	for pid, ch := range w.exits {
		close(ch) // the child got the parent-death signal
		delete(w.exits, pid)
	}
	w.mu.Unlock()
	w.conn.Close()
}

// send writes one message, with descriptors.
func (w *pyWorker) send(msg any, files ...*os.File) error {
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	var oob []byte
	if len(files) > 0 {
		if oob, err = passFiles(files); err != nil {
			return err
		}
	}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	_, _, err = w.conn.WriteMsgUnix(data, oob, nil)
	return err
}

// start asks the worker for a try: a child with files as its fds 0, 1 and
// 2, 3 and 4 (stdin, the log, the channel's two ends), cwd its folder,
// env added to its environment. It returns the child's pid and where its
// exit status comes (closed, with no status, if the worker ends first).
func (w *pyWorker) start(ctx context.Context, cwd string, env map[string]string, stdin, log, answers, requests *os.File) (int, <-chan int, error) {
	w.mu.Lock()
	select {
	case <-w.done:
		w.mu.Unlock()
		return 0, nil, errWorkerGone
	default:
	}
	w.nextID++
	id := w.nextID
	ch := make(chan pyWorkerStart, 1)
	w.starts[id] = ch
	w.mu.Unlock()
	err := w.send(map[string]any{"op": "run", "id": id, "cwd": cwd, "env": env}, stdin, log, answers, requests)
	if err != nil {
		w.mu.Lock()
		delete(w.starts, id)
		w.mu.Unlock()
		return 0, nil, fmt.Errorf("ask python worker: %w", err)
	}
	var st pyWorkerStart
	select {
	case st = <-ch:
	case <-ctx.Done():
		// The try ended before the worker answered (a worker still
		// importing): a child it starts later is ended and reaped.
		go func() {
			if st := <-ch; st.err == nil {
				_ = killGroup(st.pid)
				if _, ok := <-st.exit; ok {
					w.reap(st.pid)
				}
			}
		}()
		return 0, nil, context.Cause(ctx)
	}
	if st.err != nil {
		return 0, nil, fmt.Errorf("python worker: %w", st.err)
	}
	return st.pid, st.exit, nil
}

// reap lets the worker reap an ended child whose group airlite has ended.
func (w *pyWorker) reap(pid int) {
	_ = w.send(map[string]any{"op": "reap", "pid": pid})
}

// close ends the worker: the end of its socket makes it end its
// children's groups and exit; what does not, is killed.
func (w *pyWorker) close() {
	_ = w.conn.CloseWrite()
	select {
	case <-w.done:
	case <-time.After(2 * time.Second):
	}
	_ = killGroup(w.cmd.Process.Pid)
	<-w.done
}

// pythonWarmLimit bounds how long the ready line waits for the Python
// workers to be warm.
const pythonWarmLimit = 5 * time.Second

// warmPythonWorkers starts the worker of every interpreter and DAG folder
// whose Python callables the loaded DAGs run, so that the first try finds
// it warm instead of paying for its start, and returns once each has said
// it is warm (or has ended, or the scheduler stops).
func (s *scheduler) warmPythonWorkers() {
	if s.noPythonWorker || runtime.GOOS != "linux" {
		return
	}
	rows, err := s.opts.Store.Dags()
	if err != nil {
		return
	}
	keys := map[pyWorkerKey]bool{}
	for _, row := range rows {
		if row.Def == nil {
			continue
		}
		for _, task := range row.Def.Tasks {
			if pc := task.PythonCallable; pc != nil {
				if interp, err := pythonInterpreter(pc); err == nil {
					keys[pyWorkerKey{interp: interp, edition: s.rules.pythonSurface, folder: pc.Folder}] = true
				}
			}
		}
	}
	if len(keys) == 0 {
		return
	}
	prog, err := taskProgramDir()
	if err != nil {
		return
	}
	var started []*pyWorker
	for key := range keys {
		if s.ctx.Err() != nil {
			return
		}
		w, err := s.pyworkers.get(s.procs, key, prog)
		if err != nil {
			s.opts.Logger.Warn().Err(err).Msg("python worker: tries will start their own processes")
			continue
		}
		started = append(started, w)
	}
	for _, w := range started {
		select {
		case <-w.warm:
		case <-w.done:
		case <-s.ctx.Done():
			return
		}
	}
}
