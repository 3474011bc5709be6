package main

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// airflowignoreName is the file that lists, one regular expression a
// line, the paths of a folder and its subfolders that Airflow does not read.
const airflowignoreName = ".airflowignore"

// isDefinitionName says whether a file name is one of a definition (or a
// pools file): *.yaml, *.yml or *.json, in any letter case.
func isDefinitionName(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// folderWalk lists the definition files of a DAG folder the way Airflow's
// DagBag lists .py files (2.10.3 airflow/utils/file.py:198-252, 1.10.15
// airflow/utils/dag_processing.py:296-366): every folder, recursively,
// symlinked folders followed, passing over what a .airflowignore pattern
// matches. A folder's .airflowignore applies to it and every folder below.
// A folder reached twice (a symlink loop, or two links to one folder) is
// an error, as in Airflow 2.10.3 (1.10.15 would recurse without end).
type folderWalk struct {
	fsys  fs.FS
	label string // the folder as given, which prefixes file names
	ctx   context.Context
	warn  func(file, problem string)
	// fullPath: patterns see label/rel instead of rel (editionRules).
	fullPath bool
	// accept says which file names are listed; nil is isDefinitionName.
	accept func(name string) bool

	files []string          // slash paths inside the folder, in walk order
	seen  map[string]string // a folder's identity -> its path inside the folder
}

// walk lists the files of fsys that accept takes (nil: definition
// files), in lexical order with each folder's files before its
// subfolders.
func (l dagLoader) walk(fsys fs.FS, label string, accept func(name string) bool) ([]string, error) {
	if l.rules == nil {
		panic("dagLoader.walk: no edition rules: every caller names its edition")
	}
	w := &folderWalk{fsys: fsys, label: label, ctx: l.ctx, warn: l.warn, seen: map[string]string{},
		fullPath: l.rules.ignoreMatchesFolderPath, accept: accept}
	if w.warn == nil {
		w.warn = func(string, string) {}
	}
	id, err := w.identity(".")
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", label, err)
	}
	w.seen[id] = "."
	if err := w.walk(".", nil); err != nil {
		return nil, err
	}
	return w.files, nil
}

// walk lists the folder dir (a slash path inside fsys) under the patterns
// of the folders above it.
func (w *folderWalk) walk(dir string, patterns []*regexp.Regexp) error {
	if w.ctx != nil && w.ctx.Err() != nil {
		return fmt.Errorf("read %s: %w", w.label, context.Cause(w.ctx))
	}
	entries, err := fs.ReadDir(w.fsys, dir)
	if err != nil {
		if dir == "." {
			return fmt.Errorf("read %s: %w", w.label, err)
		}
		// Airflow's os.walk passes over a folder it cannot list.
		w.warn(w.name(dir), fmt.Sprintf("folder not readable (%v): passed over", err))
		return nil
	}
	patterns = append(patterns[:len(patterns):len(patterns)], w.readIgnoreFile(dir)...)
	var subdirs []string
	for _, e := range entries {
		name := e.Name()
		if name == airflowignoreName {
			continue
		}
		rel := path.Join(dir, name)
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			// Airflow follows symlinked folders (os.walk followlinks=True);
			// a link that leads nowhere is a file here, refused when read.
			if info, err := fs.Stat(w.fsys, rel); err == nil && info.IsDir() {
				isDir = true
			}
		}
		if !isDir && !w.accepts(name) {
			continue
		}
		if w.ignored(rel, patterns) {
			continue
		}
		if isDir {
			subdirs = append(subdirs, rel)
			continue
		}
		w.files = append(w.files, rel)
	}
	for _, sub := range subdirs {
		id, err := w.identity(sub)
		if err != nil {
			w.warn(w.name(sub), fmt.Sprintf("folder not readable (%v): passed over", err))
			continue
		}
		if other, twice := w.seen[id]; twice {
			return fmt.Errorf("read %s: the folder %s is reached again as %s (a symlink loop, or two links to one folder); "+
				"Airflow refuses this too: remove a link, or list it in %s", w.label, w.name(other), w.name(sub), airflowignoreName)
		}
		w.seen[id] = sub
		if err := w.walk(sub, patterns); err != nil {
			return err
		}
	}
	return nil
}

// accepts says whether the walk lists the file name.
func (w *folderWalk) accepts(name string) bool {
	if w.accept != nil {
		return w.accept(name)
	}
	return isDefinitionName(name)
}

// name is how errors and warnings name a path inside the folder.
func (w *folderWalk) name(rel string) string { return filepath.Join(w.label, filepath.FromSlash(rel)) }

// identity tells folders apart: on disk, the real path (symlinks
// resolved), as Airflow 2.10.3 keys them; in other file systems (the
// embedded examples, tests), which have no links, the path itself.
func (w *folderWalk) identity(rel string) (string, error) {
	if folder, ok := w.fsys.(*dagFolder); ok {
		return folder.realDir(rel)
	}
	return rel, nil
}

// ignored says whether a pattern of the folders above matches rel.
func (w *folderWalk) ignored(rel string, patterns []*regexp.Regexp) bool {
	subject := rel
	if w.fullPath {
		subject = strings.TrimSuffix(w.label, "/") + "/" + rel
	}
	for _, p := range patterns {
		if p.MatchString(subject) {
			return true
		}
	}
	return false
}

// readIgnoreFile reads dir's .airflowignore, when there is one: a regular
// expression a line, where # and the blanks before it start a comment and
// empty lines are passed over (2.10.3 airflow/utils/file.py:218-230).
// Airflow 2.10.3 matches with re2, whose syntax Go's regexp shares; a
// pattern that does not compile is passed over with a warning, as 2.10.3
// does.
func (w *folderWalk) readIgnoreFile(dir string) []*regexp.Regexp {
	rel := path.Join(dir, airflowignoreName)
	info, err := fs.Stat(w.fsys, rel)
	if err != nil {
		return nil
	}
	if !info.Mode().IsRegular() {
		w.warn(w.name(rel), fmt.Sprintf("not a regular file (%v): passed over", info.Mode().Type()))
		return nil
	}
	data, err := readAtMost(w.fsys, rel, maxDefinitionBytes)
	if err != nil {
		w.warn(w.name(rel), fmt.Sprintf("not readable (%v): passed over", err))
		return nil
	}
	var patterns []*regexp.Regexp
	for _, line := range ignoreFileLines(string(data)) {
		p, err := regexp.Compile(line)
		if err != nil {
			w.warn(w.name(rel), fmt.Sprintf("pattern %q is not a regular expression airlite reads (%v): passed over", line, err))
			continue
		}
		patterns = append(patterns, p)
	}
	return patterns
}

// ignoreCommentRe is a comment of a .airflowignore line, with the blanks
// before it.
var ignoreCommentRe = regexp.MustCompile(`\s*#.*`)

// ignoreFileLines are the patterns of a .airflowignore: lines as Python
// reads text (\r\n and \r end lines too), comments removed, empty ones
// dropped; other blanks stay part of the pattern, as in Airflow.
func ignoreFileLines(text string) []string {
	text = strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(text)
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		if line = ignoreCommentRe.ReplaceAllString(line, ""); line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}
