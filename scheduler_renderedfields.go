package main

// A try's rendered template fields as the release stores them for the
// API's rendered_fields: each field serialized (a value whose str() is
// too long replaced by a fixed message and its start) and shown through
// the secrets masker under the field's name, with the secrets the try's
// templates taught it. 2.10.3 does both when it writes the row
// (models/renderedtifields.py:119-155 __init__ and _redact, through
// serialization/helpers.py serialize_template_field); 3.2.1's task
// process does them before it sends the fields (task-sdk
// execution_time/task_runner.py:957-1047 _serialize_template_field,
// _serialize_rendered_fields). 1.10.15 stores the fields as rendered
// (models/renderedtifields.py:43-56: serialize_template_field only, with
// no masker and no limit).

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTemplatedFieldLength is [core] max_templated_field_length's default
// (2.10.3 and 3.2.1 config.yml: 4096), which airlite does not configure.
const maxTemplatedFieldLength = 4096

// truncatedFieldPrefix opens the text that replaces a value too long to
// keep (the same words in both releases).
const truncatedFieldPrefix = "Truncated. You can change this behaviour in [core]max_templated_field_length. "

// storeRenderedFields is how the release stores a try's rendered fields
// (schedulingRules.storeRenderedFields).
type storeRenderedFields func(m secretsMasker, fields map[string]any) map[string]any

// storeRenderedFields2103 is 2.10.3's: serialize_template_field, then
// redact(value, field).
func storeRenderedFields2103(m secretsMasker, fields map[string]any) map[string]any {
	return maskRenderedFields(m, fields, func(text string) string {
		// serialize_template_field: the masked text's repr, cut at
		// max_length-79 characters, between the prefix and "... ".
		return truncatedFieldPrefix + pyQuote(firstRunes(text, maxTemplatedFieldLength-79)) + "... "
	})
}

// storeRenderedFields321 is 3.2.1's: _serialize_template_field (dicts
// sorted, as the API shows them anyway), then redact(value, field).
func storeRenderedFields321(m secretsMasker, fields map[string]any) map[string]any {
	return maskRenderedFields(m, fields, func(text string) string {
		// shared/template_rendering truncate_rendered_value: the masked
		// text cut to what the prefix and "..." leave, trailing spaces
		// dropped.
		kept := firstRunes(text, maxTemplatedFieldLength-utf8.RuneCountInString(truncatedFieldPrefix)-len("..."))
		return truncatedFieldPrefix + strings.TrimRightFunc(kept, unicode.IsSpace) + "..."
	})
}

// maskRenderedFields serializes and masks each field: a true value whose
// str() is longer than maxTemplatedFieldLength becomes truncated(its
// masked str()); then every value goes through the masker under its
// field's name. fields is not changed.
func maskRenderedFields(m secretsMasker, fields map[string]any, truncated func(text string) string) map[string]any {
	if fields == nil {
		return nil
	}
	out := make(map[string]any, len(fields))
	for name, v := range fields {
		// str() of the value with its dicts' keys sorted: the order 3.2.1
		// sorts them in, and the one airlite has of a 2.10.3 dict (the
		// rendered fields keep no order).
		if py := pyPlainValue(v); pyTruthy(py) {
			if text := pyStrValue(py); utf8.RuneCountInString(text) > maxTemplatedFieldLength {
				masked, _ := m.redact(text, name, 0).(string)
				v = truncated(masked)
			}
		}
		out[name] = m.redact(v, name, 0)
	}
	return out
}

// firstRunes is s[:n] as Python slices a str: its first n characters.
func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// storedRenderedFields are a try's rendered fields as the release keeps
// them, masked with what its templates taught the masker.
func (s *scheduler) storedRenderedFields(job taskJob, rendered map[string]any) map[string]any {
	if s.rules.storeRenderedFields == nil {
		return rendered
	}
	m := s.rules.masker
	if job.secrets != nil {
		m = job.secrets.masker()
	}
	return s.rules.storeRenderedFields(m, rendered)
}

// maskedOutput is a try's output as the release keeps it in the task
// log: every secret the try learnt is "***" where the release's task
// logger masks (schedulingRules.masksTaskLog).
func (s *scheduler) maskedOutput(job taskJob, output string) string {
	if !s.rules.masksTaskLog || job.secrets == nil {
		return output
	}
	if m := job.secrets.masker(); m.secrets != nil {
		return m.secrets.Replace(output)
	}
	return output
}
