package main

// Reading a DAG folder, or the examples built into the binary, into a
// DAGSet: each file through its front end (YAML today) and the builder,
// then the checks of the set as a whole (dag ids unique, sub-DAGs).

import (
	"context"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// embeddedFixtures are the example DAGs served when --dags is not given,
// one folder per Airflow release (editionRules.examples says which).
//
//go:embed fixtures/3.2.1/*.yaml fixtures/2.10.3/*.yaml fixtures/1.10.15/*.yaml
var embeddedFixtures embed.FS

// loadExampleDAGs parses the example DAGs built into the binary for the
// edition's Airflow release, as read at now (days_ago counts from it).
func loadExampleDAGs(r *editionRules, now time.Time) (*DAGSet, error) {
	sub, err := fs.Sub(embeddedFixtures, r.examples)
	if err != nil {
		return nil, fmt.Errorf("open embedded fixtures: %w", err)
	}
	return dagLoader{now: now, rules: r}.load(sub, r.examples)
}

// maxDefinitionBytes bounds a definition file: a 15,000-task DAG is about
// 1 MiB of YAML; a larger file is a mistake, or a device that never ends.
const maxDefinitionBytes = 16 << 20

// dagLoader reads definition folders.
type dagLoader struct {
	// ctx ends the reading early (a signal during start-up); nil: never.
	ctx context.Context
	// warn hears of the entries passed over; nil: silently.
	warn func(file, problem string)
	// now is when the files are read, for relative dates; zero: the
	// current time.
	now time.Time
	// rules are the edition's; they say how .airflowignore patterns match,
	// which operators a task may name and how cron day fields combine.
	// Required: no edition stands in for another.
	rules *editionRules
	// tolerant: a definition file that cannot be read or built is an
	// import error of the set, as in Airflow's DagBag (2.10.3
	// models/dagbag.py:389-393), and the other files load; otherwise the
	// first such file fails the load (the embedded examples, tests).
	tolerant bool
}

// loadDir parses every definition in a folder on disk.
func (l dagLoader) loadDir(dir string) (*DAGSet, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("open dags folder: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("open dags folder: %s is not a folder", dir)
	}
	folder, err := openDAGFolder(dir)
	if err != nil {
		return nil, fmt.Errorf("open dags folder: %w", err)
	}
	defer folder.Close()
	listing, err := l.listFolder(folder, dir)
	if err != nil {
		return nil, err
	}
	set, err := l.loadFiles(folder, dir, listing.defs)
	if err != nil {
		return nil, err
	}
	set.folder = listing
	return set, nil
}

// fileStamp is what a reload compares to tell that a file changed: its
// size and modification time when listed, as Airflow's DAG processor
// compares modification times (2.10.3 dag_processing/manager.py:1288-1308,
// file_parsing_sort_mode modified_time).
type fileStamp struct {
	size  int64
	mtime time.Time
}

// folderRead is one walk of a DAG folder on disk and what came of its
// Python files: the definition files (slash paths inside it), the .py
// files (absolute paths), the stamp of every listed file by absolute path
// (a zero stamp when it could not be looked at), and
// each .py file's outcome, filled by readPythonDAGs.
type folderRead struct {
	defs   []string
	py     []string
	stamps map[string]fileStamp
	pyOut  map[string]*pyOutcome
}

// listFolder walks a DAG folder on disk once for both front ends: its
// definition files and its .py files, under .airflowignore, each stamped.
// A file that cannot be looked at has no stamp; reading it says why.
func (l dagLoader) listFolder(folder *dagFolder, label string) (*folderRead, error) {
	files, err := l.walk(folder, label, func(name string) bool { return isDefinitionName(name) || isPythonName(name) })
	if err != nil {
		return nil, err
	}
	read := &folderRead{stamps: make(map[string]fileStamp, len(files)), pyOut: map[string]*pyOutcome{}}
	for _, rel := range files {
		abs := absPath(filepath.Join(label, filepath.FromSlash(rel)))
		read.stamps[abs] = fileStamp{}
		if info, err := fs.Stat(folder, rel); err == nil {
			read.stamps[abs] = fileStamp{size: info.Size(), mtime: info.ModTime()}
		}
		if isPythonName(rel) {
			read.py = append(read.py, abs)
		} else {
			read.defs = append(read.defs, rel)
		}
	}
	return read, nil
}

// load parses every *.yaml, *.yml and *.json file of fsys, in every
// folder that no .airflowignore pattern rules out (dagLoader.walk), then
// checks the set as a whole. pools.yaml / pools.json at the top hold
// pools; further down they are refused. label prefixes file names in
// errors. Entries that are not regular files (a FIFO, a device, a socket,
// also behind a symlink) are passed over with a warning: reading one may
// never end. A file over maxDefinitionBytes is refused.
func (l dagLoader) load(fsys fs.FS, label string) (*DAGSet, error) {
	files, err := l.walk(fsys, label, nil)
	if err != nil {
		return nil, err
	}
	return l.loadFiles(fsys, label, files)
}

// loadFiles parses the definition files files (slash paths inside fsys,
// as walked), then checks the set as a whole.
func (l dagLoader) loadFiles(fsys fs.FS, label string, files []string) (*DAGSet, error) {
	if l.rules == nil {
		panic("dagLoader.load: no edition rules: every caller names its edition")
	}
	set := &DAGSet{}
	seen := map[string]string{} // dag_id -> file
	var failed error
	// fail records a file's problem: an import error when tolerant, else
	// the load's error.
	fail := func(file string, err error) {
		if !l.tolerant {
			failed = err
			return
		}
		set.ImportErrors = append(set.ImportErrors, FileImportError{File: absPath(file), Text: err.Error()})
		if l.warn != nil {
			l.warn(file, "DAG file did not load: "+err.Error())
		}
	}
	for _, rel := range files {
		file := filepath.Join(label, filepath.FromSlash(rel))
		if l.ctx != nil && l.ctx.Err() != nil {
			return nil, fmt.Errorf("read %s: %w", label, context.Cause(l.ctx))
		}
		info, err := fs.Stat(fsys, rel) // follows a symlink
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", file, err)
		}
		if !info.Mode().IsRegular() {
			if l.warn != nil {
				l.warn(file, fmt.Sprintf("not a regular file (%v): passed over", info.Mode().Type()))
			}
			continue
		}
		base := strings.TrimSuffix(rel, path.Ext(rel))
		isPools := path.Base(base) == "pools"
		if !isPools {
			set.Files = append(set.Files, absPath(file))
		}
		if info.Size() > maxDefinitionBytes {
			err := fmt.Errorf("read %s: %d bytes, over the limit of %d for a definition file", file, info.Size(), maxDefinitionBytes)
			if isPools {
				return nil, err
			}
			if fail(file, err); failed != nil {
				return nil, failed
			}
			continue
		}
		if isPools && path.Dir(rel) != "." {
			return nil, fmt.Errorf("%s: pools are read from %s at the top of the DAG folder only: move it there, or list it in %s",
				file, path.Base(rel), airflowignoreName)
		}
		// The file's parse is timed from its read to its checks, as
		// Airflow's DAG processor times each file's (last_parse_duration).
		began := time.Now()
		data, err := readAtMost(fsys, rel, maxDefinitionBytes)
		if err != nil && base == "pools" {
			return nil, fmt.Errorf("read %s: %w", file, err)
		}
		if err != nil {
			if fail(file, fmt.Errorf("read %s: %w", file, err)); failed != nil {
				return nil, failed
			}
			continue
		}
		if base == "pools" {
			pools, err := readPools(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			set.Pools = append(set.Pools, pools...)
			continue
		}
		dag, err := l.readDAG(data, file)
		if err == nil {
			if err = l.rules.checkDAG(dag); err != nil {
				err = fmt.Errorf("line %d: %w", dag.idLine, err)
			}
		}
		if err != nil {
			if fail(file, fmt.Errorf("%s: %w", file, err)); failed != nil {
				return nil, failed
			}
			continue
		}
		if other, dup := seen[dag.DagID]; dup {
			if fail(file, fmt.Errorf("%s: line %d: dag_id %q is already defined in %s", file, dag.idLine, dag.DagID, other)); failed != nil {
				return nil, failed
			}
			continue
		}
		seen[dag.DagID] = file
		dag.RelativeFileloc = rel
		dag.ParseDuration = parseSeconds(time.Since(began))
		// Any file that cannot be served (none, or not one to serve) means
		// /code answers with the rendering.
		if src, err := readDAGSource(fsys, base+".py"); err == nil {
			dag.SourceCode = string(src)
		}
		set.DAGs = append(set.DAGs, dag)
	}
	sort.Slice(set.DAGs, func(i, j int) bool { return set.DAGs[i].DagID < set.DAGs[j].DagID })
	if err := linkSubDAGs(set.DAGs, seen); err != nil {
		return nil, err
	}
	return set, nil
}

// parseSeconds is a measured parse as last_parse_duration's float of
// seconds: at least a nanosecond, since 0 reads as "not parsed" (null)
// and a clock may be too coarse to see a small file's read.
func parseSeconds(d time.Duration) float64 {
	return max(d, time.Nanosecond).Seconds()
}

// absPath is file as an absolute path, which Airflow's import errors and
// filelocs are; file itself when it cannot be resolved.
func absPath(file string) string {
	if abs, err := filepath.Abs(file); err == nil {
		return abs
	}
	return file
}

// parseDAGFor reads one definition file (YAML or JSON) as read at now,
// from which relative dates count, and builds it for the edition whose
// rules r are. Every error names the line it is about.
func parseDAGFor(data []byte, now time.Time, r *editionRules) (*DAG, error) {
	spec, err := readYAMLDAG(data, now)
	if err != nil {
		return nil, err
	}
	return buildDAG(spec, r)
}

// readDAG reads one definition file through its front end and builds it
// for the loader's edition.
func (l dagLoader) readDAG(data []byte, file string) (*DAG, error) {
	now := l.now
	if now.IsZero() {
		now = time.Now()
	}
	return buildDefinitionFile(data, file, now, l.rules)
}

// buildDefinitionFile reads the bytes of the definition file file as read
// at now, from which relative dates count, and builds it for the edition
// whose rules r are. The DAG keeps its origin (the bytes and now) when
// the edition's stale DAGs keep their definition, so that a snapshot can
// keep a stale one's (dag_origin.go).
func buildDefinitionFile(data []byte, file string, now time.Time, r *editionRules) (*DAG, error) {
	spec, err := readYAMLDAG(data, now)
	if err != nil {
		return nil, err
	}
	spec.Fileloc = file
	dag, err := buildDAG(spec, r)
	if err != nil {
		return nil, err
	}
	if r.staleKeepsDefinition {
		dag.origin = &dagOrigin{data: string(data), readAt: now.UTC()}
	}
	return dag, nil
}

// readPools reads a pools file through its front end and builds its pools.
func readPools(data []byte) ([]*Pool, error) {
	spec, err := readYAMLPools(data)
	if err != nil {
		return nil, err
	}
	return buildPoolSpecs(spec)
}

// linkSubDAGs checks every SubDagOperator's target and marks the child DAGs.
// Airflow requires a sub-DAG's id to be "<parent>.<task_id>".
func linkSubDAGs(dags []*DAG, files map[string]string) error {
	byID := make(map[string]*DAG, len(dags))
	for _, d := range dags {
		byID[d.DagID] = d
	}
	for _, d := range dags {
		for _, t := range d.Tasks {
			if t.Operator != "SubDagOperator" {
				continue
			}
			want := d.DagID + "." + t.TaskID
			if t.Subdag == "" {
				t.Subdag = want
			}
			if t.Subdag != want {
				return fmt.Errorf("%s: line %d: task %q: subdag must be named %q (Airflow names a sub-DAG <parent>.<task_id>), not %q",
					files[d.DagID], d.taskLines[t.TaskID], t.TaskID, want, t.Subdag)
			}
			child, ok := byID[t.Subdag]
			if !ok {
				return fmt.Errorf("%s: line %d: task %q: subdag %q is not defined by any file", files[d.DagID], d.taskLines[t.TaskID], t.TaskID, t.Subdag)
			}
			if child.ParentDagID != "" && child.ParentDagID != d.DagID {
				return fmt.Errorf("%s: line %d: task %q: subdag %q is already run by %s", files[d.DagID], d.taskLines[t.TaskID], t.TaskID, t.Subdag, child.ParentDagID)
			}
			child.ParentDagID = d.DagID
		}
	}
	return nil
}

// readAtMost reads a file of at most limit bytes (it may have grown since
// it was looked at).
func readAtMost(fsys fs.FS, name string, limit int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("over the limit of %d bytes for a definition file", limit)
	}
	return data, nil
}
