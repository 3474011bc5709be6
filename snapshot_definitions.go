package main

// A snapshot's definitions file: what each DAG's definition was built
// from (dag_origin.go), kept beside the snapshot so that a start can
// build a DAG its files no longer give, as Airflow 3's database keeps
// every DAG's serialized DAG (the DagBag reads serialized_dag whatever
// DagModel.is_stale says). Only the editions whose stale DAGs keep their
// definition have any (editionRules.staleKeepsDefinition).
//
// The definitions are in a file of their own, not in the snapshot's DAG
// rows, because they are large and seldom change: a Python DAG of ten
// tasks serializes to some 15 KB, and a snapshot is written every few
// seconds while runs change. The file is written only when the DAGs'
// definitions changed since the last one written for the same snapshot
// path; its name carries the SHA-256 of its bytes, so that a name always
// means the same content, and the snapshot's header holds that digest
// (<snapshot>.definitions-<digest> is the file). It is
// written, synced and renamed before the snapshot that names it; the
// others are removed once that snapshot is committed, so that the
// committed snapshot's always exists. A definitions file that is gone or
// damaged costs only the definitions: the restore goes on without them,
// as a start before them did, and says so (snapshotStats.DefinitionsLost).

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	gojson "github.com/goccy/go-json"
)

const (
	definitionsFormat  = "airlite-definitions"
	definitionsVersion = 1
	// definitionsInfix joins a snapshot's name and the hex digest of its
	// definitions file's bytes: snapshot.json.definitions-<digest>.
	definitionsInfix = ".definitions-"
	// definitionsDigestLen is how many hex digits of the SHA-256 the name
	// carries (128 bits).
	definitionsDigestLen = 32
)

// definitionsHeader is a definitions file's first line.
type definitionsHeader struct {
	Format      string `json:"format"`
	Version     int    `json:"version"`
	Definitions int    `json:"definitions"` // lines that follow
}

// snapDagDefinition is one line of a definitions file: a DAG's id and
// what its definition was built from.
type snapDagDefinition struct {
	DagID      string          `json:"dag_id"`
	Definition *snapDefinition `json:"definition"`
}

// definitionRef is a DAG row's definition as a snapshot saw it: the
// definition (whose origin is written), or what a restore kept and a
// start has not built yet. Rows are never changed in place, so the same
// pointers mean the same definition.
type definitionRef struct {
	dagID string
	def   *DAG
	kept  *keptDefinition
}

// record is the line a definitions file holds for ref.
func (ref definitionRef) record() *snapDagDefinition {
	kept := ref.kept
	if ref.def != nil {
		kept = keepDefinition(ref.def)
	}
	return &snapDagDefinition{DagID: ref.dagID, Definition: kept.record()}
}

// definitionsWritten remembers, per snapshot path, the definitions file
// last written and the definitions it holds, so that a snapshot whose
// DAGs' definitions did not change names the same file without encoding
// them again. One writer at a time per path (the snapshotter).
type definitionsWritten struct {
	mu     sync.Mutex
	byPath map[string]writtenDefinitions
}

type writtenDefinitions struct {
	digest string // names the file (definitionsPath)
	refs   []definitionRef
	// swept: the other definitions files of the path were removed after
	// a snapshot named this one.
	swept bool
}

// write makes sure the definitions of refs are in a definitions file
// beside the snapshot path, writing one when they changed since the last
// (or when it is gone), and returns its digest; "" when there are none.
func (w *definitionsWritten) write(path string, refs []definitionRef) (string, error) {
	if len(refs) == 0 {
		return "", nil
	}
	w.mu.Lock()
	last, ok := w.byPath[path]
	w.mu.Unlock()
	if ok && sameDefinitions(last.refs, refs) {
		if _, err := os.Stat(definitionsPath(path, last.digest)); err == nil {
			return last.digest, nil
		}
	}
	var buf bytes.Buffer
	enc := gojson.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&definitionsHeader{Format: definitionsFormat, Version: definitionsVersion, Definitions: len(refs)}); err != nil {
		return "", fmt.Errorf("write definitions: %w", err)
	}
	for _, ref := range refs {
		if err := enc.Encode(ref.record()); err != nil {
			return "", fmt.Errorf("write the definition of %s: %w", ref.dagID, err)
		}
	}
	sum := sha256.Sum256(buf.Bytes())
	digest := hex.EncodeToString(sum[:])[:definitionsDigestLen]
	file := definitionsPath(path, digest)
	// The name says the content: one already there (a restart's first
	// snapshot, the definitions back as they were) is not written again.
	if _, err := os.Stat(file); err != nil {
		if err := writeFileAtomic(file, buf.Bytes(), 0o600); err != nil {
			return "", fmt.Errorf("write definitions: %w", err)
		}
	}
	w.mu.Lock()
	if w.byPath == nil {
		w.byPath = map[string]writtenDefinitions{}
	}
	w.byPath[path] = writtenDefinitions{digest: digest, refs: refs, swept: ok && last.digest == digest && last.swept}
	w.mu.Unlock()
	return digest, nil
}

// definitionsPath is the definitions file of digest beside the snapshot
// path.
func definitionsPath(path, digest string) string { return path + definitionsInfix + digest }

// committed removes, once a snapshot naming the definitions file of
// digest ("" for none) is committed at path, the other definitions files
// of path: those of earlier snapshots, and any a crash left. It looks
// once per file named.
func (w *definitionsWritten) committed(path, digest string) error {
	w.mu.Lock()
	last := w.byPath[path]
	done := last.swept && last.digest == digest
	w.mu.Unlock()
	if done {
		return nil
	}
	matches, err := filepath.Glob(path + definitionsInfix + "*")
	if err != nil {
		return err
	}
	var errs []error
	for _, m := range matches {
		if digest != "" && m == definitionsPath(path, digest) {
			continue
		}
		if err := os.Remove(m); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("remove earlier definitions files: %w", errors.Join(errs...))
	}
	w.mu.Lock()
	if w.byPath == nil {
		w.byPath = map[string]writtenDefinitions{}
	}
	last = w.byPath[path]
	last.digest, last.swept = digest, true
	if digest == "" {
		last.refs = nil
	}
	w.byPath[path] = last
	w.mu.Unlock()
	return nil
}

// sameDefinitions says whether two lists of refs hold the same
// definitions for the same DAGs.
func sameDefinitions(a, b []definitionRef) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// readDefinitions reads the definitions file of digest that the snapshot
// at path names: the kept definitions by dag_id. A digest that is not one
// airlite writes, a file whose bytes do not match it, or one that does
// not decode, is an error.
func readDefinitions(path, digest string) (map[string]*keptDefinition, error) {
	if len(digest) != definitionsDigestLen || strings.Trim(digest, "0123456789abcdef") != "" {
		return nil, fmt.Errorf("definitions digest %q is not %d lowercase hex digits", digest, definitionsDigestLen)
	}
	file := definitionsPath(path, digest)
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:])[:definitionsDigestLen] != digest {
		return nil, fmt.Errorf("%s: damaged: its SHA-256 is not the one its name says", file)
	}
	r := bufio.NewReader(bytes.NewReader(data))
	line, err := readLine(r)
	if err != nil {
		return nil, fmt.Errorf("%s: no header: %w", file, err)
	}
	var header definitionsHeader
	if err := gojson.Unmarshal(line, &header); err != nil {
		return nil, fmt.Errorf("%s: corrupt header: %w", file, err)
	}
	if header.Format != definitionsFormat || header.Version != definitionsVersion {
		return nil, fmt.Errorf("%s: format %q version %d, want %q version %d", file, header.Format, header.Version, definitionsFormat, definitionsVersion)
	}
	out := make(map[string]*keptDefinition, max(header.Definitions, 0))
	for i := range header.Definitions {
		line, err := readLine(r)
		if err != nil {
			return nil, fmt.Errorf("%s: definition %d of %d: %w", file, i+1, header.Definitions, err)
		}
		var rec snapDagDefinition
		if err := gojson.Unmarshal(line, &rec); err != nil {
			return nil, fmt.Errorf("%s: definition %d: %w", file, i+1, err)
		}
		if rec.DagID == "" || rec.Definition == nil {
			return nil, fmt.Errorf("%s: definition %d has no dag_id or no definition", file, i+1)
		}
		if _, twice := out[rec.DagID]; twice {
			return nil, fmt.Errorf("%s: the definition of %s appears twice", file, rec.DagID)
		}
		kept, err := rec.Definition.kept()
		if err == nil {
			err = kept.check()
		}
		if err != nil {
			return nil, fmt.Errorf("%s: definition of %s: %w", file, rec.DagID, err)
		}
		out[rec.DagID] = kept
	}
	if _, err := readLine(r); err == nil {
		return nil, fmt.Errorf("%s: more than the %d definitions its header says", file, header.Definitions)
	}
	return out, nil
}
