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
// committed snapshot's always exists. A restore does not read the file:
// the start reads it, and checks its digest, only when a restored DAG is
// one its files no longer give (buildKeptDefinitions), and decodes only
// those DAGs' definitions (keptDefinition.raw); a start whose files give
// every DAG needs none and reads nothing. A definitions file that is
// gone or damaged costs only the definitions: the start goes on without
// them, as a start before them did, and says so. A file damaged under
// its right name is written again by the next snapshot of the same
// definitions (writtenDefinitions.file).

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
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
// what its definition was built from, a *snapDefinition, or the JSON of
// one as it was read (gojson.RawMessage), written back byte for byte.
type snapDagDefinition struct {
	DagID      string `json:"dag_id"`
	Definition any    `json:"definition"`
}

// snapDagDefinitionRead is a line of a definitions file as a restore
// reads it: the definition's JSON is kept undecoded (keptDefinition.raw)
// until a start needs it, since a start whose files give every DAG needs
// none, and a Python DAG's definition is some 15 KB of JSON to decode.
type snapDagDefinitionRead struct {
	DagID      string            `json:"dag_id"`
	Definition gojson.RawMessage `json:"definition"`
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
	switch {
	case ref.def != nil:
		return &snapDagDefinition{DagID: ref.dagID, Definition: keepDefinition(ref.def).record()}
	case ref.kept.raw != nil:
		// Not decoded since it was read: the same bytes, so that the
		// file, and its digest, are the same as the one read.
		return &snapDagDefinition{DagID: ref.dagID, Definition: gojson.RawMessage(ref.kept.raw)}
	}
	return &snapDagDefinition{DagID: ref.dagID, Definition: ref.kept.record()}
}

// definitionsWritten remembers, per snapshot path, the definitions file
// last written and the definitions it holds, so that a snapshot whose
// DAGs' definitions did not change names the same file without encoding
// them again. One writer at a time per path (the snapshotter).
type definitionsWritten struct {
	mu     sync.Mutex
	byPath map[string]writtenDefinitions
	// restored is the definitions file a restore named and left unread
	// (path, digest) until the start needs it (main_startup.go
	// buildKeptDefinitions): with every DAG's file there it needs none.
	restored [2]string
}

type writtenDefinitions struct {
	digest string // names the file (definitionsPath)
	refs   []definitionRef
	// file is the definitions file of digest as this writer wrote it, or
	// as a restore read it and found it whole; nil when neither. A name
	// says what the content should be, not that it is: a file damaged on
	// disk (truncated, rewritten) keeps its name, and one taken for right
	// by its name alone would stay damaged until a start needs it.
	file os.FileInfo
	// swept: the other definitions files of the path were removed after
	// a snapshot named this one.
	swept bool
}

// write makes sure the definitions of refs are in a definitions file
// beside the snapshot path, writing one when they changed since the last,
// or when the file is not the one written (gone, truncated, replaced:
// unchangedFile), and returns its digest; "" when there are none.
func (w *definitionsWritten) write(path string, refs []definitionRef) (string, error) {
	if len(refs) == 0 {
		return "", nil
	}
	w.mu.Lock()
	last, ok := w.byPath[path]
	w.mu.Unlock()
	if ok && sameDefinitions(last.refs, refs) && unchangedFile(definitionsPath(path, last.digest), last.file) {
		return last.digest, nil
	}
	// Streamed to a temporary file and hashed on the way, not held in
	// memory (17 MB for 1,000 Python DAGs): the digest, and so the name,
	// is known only at the end, when the file is renamed to it.
	file, err := createAtomic(path+definitionsInfix+"new", 0o600)
	if err != nil {
		return "", fmt.Errorf("write definitions: %w", err)
	}
	defer file.Abort() // removes the temporary file unless committed
	h := sha256.New()
	enc := gojson.NewEncoder(io.MultiWriter(file, h))
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&definitionsHeader{Format: definitionsFormat, Version: definitionsVersion, Definitions: len(refs)}); err != nil {
		return "", fmt.Errorf("write definitions: %w", err)
	}
	for _, ref := range refs {
		if err := enc.Encode(ref.record()); err != nil {
			return "", fmt.Errorf("write the definition of %s: %w", ref.dagID, err)
		}
	}
	digest := hex.EncodeToString(h.Sum(nil))[:definitionsDigestLen]
	target := definitionsPath(path, digest)
	// One already there under the name is not written again only when
	// it is the file this writer wrote or a restore found whole (the
	// definitions back as they were since); any other, damaged or not,
	// is replaced, the rename atomic: a snapshot that names it finds the
	// old bytes or the new, never a part.
	info := last.file
	if !ok || last.digest != digest || !unchangedFile(target, info) {
		if err := file.CommitAs(target); err != nil {
			return "", fmt.Errorf("write definitions: %w", err)
		}
		if info, err = os.Stat(target); err != nil {
			return "", fmt.Errorf("write definitions: %w", err)
		}
	}
	w.mu.Lock()
	if w.byPath == nil {
		w.byPath = map[string]writtenDefinitions{}
	}
	w.byPath[path] = writtenDefinitions{digest: digest, refs: refs, file: info, swept: ok && last.digest == digest && last.swept}
	w.mu.Unlock()
	return digest, nil
}

// unchangedFile says whether the file at name is still the one info
// describes (nil: none known): the same inode, size and modification
// time. One stat, where hashing the file again would read it whole at
// every snapshot: it sees a file truncated, replaced or written since,
// not bits flipped on the disk under it nor a write in place within the
// filesystem's clock tick of the last; a start, which hashes the file it
// reads, finds those.
func unchangedFile(name string, info os.FileInfo) bool {
	if info == nil {
		return false
	}
	now, err := os.Stat(name)
	return err == nil && os.SameFile(info, now) && now.Size() == info.Size() && now.ModTime().Equal(info.ModTime())
}

// readWhole records that the definitions file of digest beside the
// snapshot path, as info describes it, was read and found whole by a
// restore: the next snapshot of the same definitions names it without
// writing it again.
func (w *definitionsWritten) readWhole(path, digest string, info os.FileInfo) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.byPath == nil {
		w.byPath = map[string]writtenDefinitions{}
	}
	w.byPath[path] = writtenDefinitions{digest: digest, file: info}
}

// leaveRestored records that a restore of the snapshot at path left the
// definitions file of digest it names unread.
func (w *definitionsWritten) leaveRestored(path, digest string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.restored = [2]string{path, digest}
}

// readRestored reads the definitions file a restore left unread: nil, nil
// when there is none, or the start dropped it; the error says why its
// definitions are lost (gone, damaged). A file found whole is one the
// next snapshot of the same definitions need not write again.
func (w *definitionsWritten) readRestored() (map[string]*keptDefinition, error) {
	w.mu.Lock()
	path, digest := w.restored[0], w.restored[1]
	w.mu.Unlock()
	if digest == "" {
		return nil, nil
	}
	defs, info, err := readDefinitions(path, digest)
	if err != nil {
		return nil, err
	}
	w.readWhole(path, digest, info)
	return defs, nil
}

// dropRestored forgets the definitions file a restore left unread, once
// the start has built what it needed of it: the rows it gave definitions
// to have them, the others are the files' and need none.
func (w *definitionsWritten) dropRestored() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.restored = [2]string{}
}

// definitionsPath is the definitions file of digest beside the snapshot
// path.
func definitionsPath(path, digest string) string { return path + definitionsInfix + digest }

// moveDefinitionsAside renames the definitions files of the snapshot at
// path to go with it where it was moved, dest
// (<dest>.definitions-<digest>), and returns their new names. It moves
// every one, since a snapshot moved aside may not say which is its own;
// a crash's temporary files stay, for the next snapshot to remove.
func moveDefinitionsAside(path, dest string) ([]string, error) {
	matches, err := filepath.Glob(path + definitionsInfix + "*")
	if err != nil {
		return nil, err
	}
	var moved []string
	for _, m := range matches {
		digest := strings.TrimPrefix(m, path+definitionsInfix)
		if len(digest) != definitionsDigestLen || strings.Trim(digest, "0123456789abcdef") != "" {
			continue
		}
		to := definitionsPath(dest, digest)
		if err := os.Rename(m, to); err != nil {
			return moved, fmt.Errorf("move %s aside with its snapshot: %w", m, err)
		}
		moved = append(moved, to)
	}
	return moved, nil
}

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
// at path names: the kept definitions by dag_id, each undecoded
// (keptDefinition.raw) until a start builds it, which it does only for
// a DAG its files no longer give (main_startup.go buildKeptDefinitions).
// A digest that is not one airlite writes, a file whose bytes do not
// match it, or whose lines do not decode, is an error; a definition
// airlite cannot read is one when decoded, and costs its DAG alone. info
// is the file as found before it was read.
func readDefinitions(path, digest string) (map[string]*keptDefinition, os.FileInfo, error) {
	if len(digest) != definitionsDigestLen || strings.Trim(digest, "0123456789abcdef") != "" {
		return nil, nil, fmt.Errorf("definitions digest %q is not %d lowercase hex digits", digest, definitionsDigestLen)
	}
	file := definitionsPath(path, digest)
	// Stat before the read: a file changed after it differs from info,
	// and the next snapshot writes it again rather than trust it.
	info, err := os.Stat(file)
	if err != nil {
		return nil, nil, err
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:])[:definitionsDigestLen] != digest {
		return nil, nil, fmt.Errorf("%s: damaged: its SHA-256 is not the one its name says", file)
	}
	defs, err := splitDefinitions(file, data)
	if err != nil {
		return nil, nil, err
	}
	return defs, info, nil
}

// splitDefinitions cuts the bytes of a definitions file, whose digest is
// checked, into its kept definitions by dag_id, undecoded.
func splitDefinitions(file string, data []byte) (map[string]*keptDefinition, error) {
	// Lines are cut from the bytes read, not copied: a definition not
	// decoded stays a part of them until the start has built or dropped
	// it (its rows replaced by LoadDAGs or AttachKeptDefinitions).
	rest := data
	nextLine := func() ([]byte, bool) {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return nil, false
		}
		line := rest[:i]
		rest = rest[i+1:]
		return line, true
	}
	line, ok := nextLine()
	if !ok {
		return nil, fmt.Errorf("%s: no header: %w", file, io.ErrUnexpectedEOF)
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
		line, ok := nextLine()
		if !ok {
			return nil, fmt.Errorf("%s: definition %d of %d: %w", file, i+1, header.Definitions, io.ErrUnexpectedEOF)
		}
		dagID, raw, err := splitDefinitionLine(line)
		if err != nil {
			return nil, fmt.Errorf("%s: definition %d: %w", file, i+1, err)
		}
		if dagID == "" || len(raw) == 0 || raw[0] != '{' {
			return nil, fmt.Errorf("%s: definition %d has no dag_id or no definition", file, i+1)
		}
		if _, twice := out[dagID]; twice {
			return nil, fmt.Errorf("%s: the definition of %s appears twice", file, dagID)
		}
		out[dagID] = &keptDefinition{raw: raw}
	}
	if len(rest) > 0 {
		return nil, fmt.Errorf("%s: more than the %d definitions its header says", file, header.Definitions)
	}
	return out, nil
}

// splitDefinitionLine is the dag_id of a definitions file's line and its
// definition's JSON, not decoded. A line as the writer lays it out,
// {"dag_id":"<id>","definition":{...}} with an id that needs no escape,
// is cut, not scanned: a Python DAG's definition is some 15 KB, and a
// start whose files give every DAG needs none; any other is decoded
// whole. The definition is checked when decoded (keptDefinition.decoded).
func splitDefinitionLine(line []byte) (string, []byte, error) {
	const prefix, middle = `{"dag_id":"`, `","definition":`
	if rest, ok := bytes.CutPrefix(line, []byte(prefix)); ok && bytes.HasSuffix(rest, []byte("}")) {
		i := bytes.IndexByte(rest, '"')
		if i >= 0 && bytes.IndexByte(rest[:i], '\\') < 0 && bytes.HasPrefix(rest[i:], []byte(middle)) {
			return string(rest[:i]), rest[i+len(middle) : len(rest)-1], nil
		}
	}
	var rec snapDagDefinitionRead
	if err := gojson.Unmarshal(line, &rec); err != nil {
		return "", nil, err
	}
	return rec.DagID, rec.Definition, nil
}
