package main

// A task instance's logs in /api/v2 (issue #21): airflow-core/src/airflow/
// api_fastapi/core_api/routes/public/log.py get_log and
// get_external_log_url. airlite keeps each try's output (the store's task
// log); Airflow 3.2.1's file task handler reads it as structured messages
// after a group naming its source (utils/log/file_task_handler.py), and
// continues from a signed token holding the lines already read.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Airflow 3.2.1's texts for the log routes (routes/public/log.py,
// common/headers.py).
const (
	v2LogTINotFound   = "TaskInstance not found"
	v2LogBadSignature = "Bad Signature. Please use only the tokens provided by the API."
	v2LogBadAccept    = "Only application/json or application/x-ndjson is supported"
	// The default task log handler (FileTaskHandler) has no external
	// link: get_external_log_url's 400.
	v2LogNoExternal = "Task log handler does not support external logs."
)

// v2LogMessage is the file task handler's StructuredLogMessage
// (utils/log/file_task_handler.py) for one line of airlite's log or the
// group naming its source. Its timestamp is null: a line of plain output
// has none (the handler's timestamp guess reads a leading date, which
// airlite does not attempt).
type v2LogMessage struct {
	Timestamp *string  `json:"timestamp"`
	Event     string   `json:"event"`
	Sources   []string `json:"sources,omitempty"`
	// header: one of the group's two messages, which the handler builds
	// without a timestamp; a line's is set, to None.
	header bool
}

// v2LogSetFields is a message as the JSON answer has it: the fields set
// (response_model_exclude_unset), so a header has no timestamp.
type v2LogSetFields struct {
	Event   string   `json:"event"`
	Sources []string `json:"sources,omitempty"`
}

// v2LogResponse is TaskInstancesLogResponse.
type v2LogResponse struct {
	Content           []any   `json:"content"`
	ContinuationToken *string `json:"continuation_token"`
}

// v2LogMetadata is what a continuation token carries (the file task
// handler's metadata).
type v2LogMetadata struct {
	DownloadLogs bool `json:"download_logs"`
	EndOfLog     bool `json:"end_of_log"`
	LogPos       int  `json:"log_pos"`
}

// v2LogParams are get_log's query parameters.
var v2LogParams = []v1Param{qV2Bool("full_content"), qV2Int("map_index"), qV2Str("token")}

// v2LogSource names a try's log as Airflow's default log_filename_template
// does (relative to the log folder, which airlite does not have).
func v2LogSource(dagID, runID, taskID string, try int64) string {
	return fmt.Sprintf("dag_id=%s/run_id=%s/task_id=%s/attempt=%d.log", dagID, runID, taskID, try)
}

// v2LogAccept is common/headers.py header_accept_json_or_ndjson_depends:
// whether the answer is NDJSON (application/x-ndjson) or JSON
// (application/json and */*), else the 406. An absent header is the
// default */*; one sent empty is refused, as FastAPI passes "" to the
// dependency.
func v2LogAccept(r *http.Request) (ndjson bool, err error) {
	accept := "*/*"
	if values := r.Header.Values("Accept"); len(values) > 0 {
		accept = values[0]
	}
	switch {
	case strings.HasPrefix(accept, "*/*"), strings.HasPrefix(accept, "application/json"):
		return false, nil
	case strings.HasPrefix(accept, "application/x-ndjson"):
		return true, nil
	}
	return false, &v2Error{status: http.StatusNotAcceptable, detail: v2LogBadAccept}
}

// v2LogAcceptCheck is v2LogAccept as the route's dependency, solved (its
// 406 raised) before the parameters are validated.
func v2LogAcceptCheck(r *http.Request) error {
	_, err := v2LogAccept(r)
	return err
}

// v2GetLog is get_log: JSON (for application/json and */*) or NDJSON (for
// application/x-ndjson), from the token's position unless full_content.
func (s *server) v2GetLog(w http.ResponseWriter, r *http.Request, req *apiRequest) {
	d := s.dialV2
	ndjson, err := v2LogAccept(r) // checked by the row's dependency
	if err != nil {
		d.answerError(s, w, r, err)
		return
	}
	meta := v2LogMetadata{}
	// given is the token's metadata as sent, every key kept: the NDJSON
	// answer signs it again.
	given := map[string]json.RawMessage{}
	if token, ok := req.query.str("token"); ok && token != "" {
		raw, err := loadSignedJSON(s.v1Secret, token)
		if err == nil {
			err = json.Unmarshal(raw, &meta)
		}
		if err == nil {
			err = json.Unmarshal(raw, &given)
		}
		if err != nil {
			d.answerError(s, w, r, &v2Error{status: http.StatusBadRequest, detail: v2LogBadSignature})
			return
		}
	}
	full, _ := req.query.v2Bool("full_content")
	meta.DownloadLogs = meta.DownloadLogs || full
	given["download_logs"] = json.RawMessage(strconv.FormatBool(meta.DownloadLogs))
	dagID, runID, taskID := req.param("dag_id"), req.param("dag_run_id"), req.param("task_id")
	try := v2PathInt(req, "try_number")
	log, err := s.ops.taskTryLog(dagID, runID, taskID, v2MapIndexParam(req), try)
	if errors.Is(err, errNotFound) {
		d.answerError(s, w, r, &v2Error{status: http.StatusNotFound, detail: v2LogTINotFound})
		return
	}
	if err != nil {
		d.answerError(s, w, r, err)
		return
	}
	if try == 0 {
		s.v2WriteTryZeroLog(w, r, log.ti, ndjson, meta.EndOfLog, given)
		return
	}
	lines := splitLogLines(log.output)
	// NDJSON streams from the start (read_log_stream drops log_pos).
	from := meta.LogPos
	if meta.DownloadLogs || ndjson || from > len(lines) {
		from = 0
	}
	content := []v2LogMessage{{Event: "::group::Log message source details", Sources: []string{v2LogSource(dagID, runID, taskID, try)}, header: true},
		{Event: "::endgroup::", header: true}}
	for _, l := range lines[from:] {
		content = append(content, v2LogMessage{Event: l})
	}
	if ndjson {
		s.v2WriteLogStream(w, r, content, meta.EndOfLog, given)
		return
	}
	// The try's log ends when it is not the task instance's running try
	// (FileTaskHandler._read: end_of_log unless running or deferred).
	end := !(log.running && int64(log.ti.TryNumber) == try)
	var token *string
	if !end {
		t, err := signJSON(s.v1Secret, v2LogMetadata{DownloadLogs: meta.DownloadLogs, LogPos: len(lines)})
		if err != nil {
			d.answerError(s, w, r, err)
			return
		}
		token = &t
	}
	out := v2LogResponse{Content: make([]any, len(content)), ContinuationToken: token}
	for i, m := range content {
		out.Content[i] = m
		if m.header {
			out.Content[i] = v2LogSetFields{Event: m.Event, Sources: m.Sources}
		}
	}
	writeV2JSON(w, r, http.StatusOK, out)
}

// v2WriteTryZeroLog is get_log's answer for try 0, a task instance not
// run yet: the file task handler's read answers one message without
// reading a file, the log ended (3.2.1 utils/log/file_task_handler.py
// read: a skipped task instance's "Task was skipped, no logs available.",
// any other's error "Try number 0 is invalid.", a message with a level).
func (s *server) v2WriteTryZeroLog(w http.ResponseWriter, r *http.Request, ti *TaskInstance, ndjson, ended bool, given map[string]json.RawMessage) {
	type levelled struct {
		Timestamp *string `json:"timestamp,omitempty"`
		Event     string  `json:"event"`
		Level     string  `json:"level,omitempty"`
	}
	msg := levelled{Event: "Error fetching the logs. Try number 0 is invalid.", Level: "error"}
	if ti.State == TaskSkipped {
		msg = levelled{Event: "Task was skipped, no logs available."}
	}
	if !ndjson {
		// Only the fields set (response_model_exclude_unset): no
		// timestamp; the log ended, so no continuation token.
		writeV2JSON(w, r, http.StatusOK, v2LogResponse{Content: []any{msg}})
		return
	}
	// NDJSON writes every field (model_dump_json): the timestamp is null.
	line, err := json.Marshal(msg)
	if err != nil {
		s.dialV2.answerError(s, w, r, fmt.Errorf("render log: %w", err))
		return
	}
	line = append([]byte(`{"timestamp":null,`), line[1:]...)
	s.v2WriteLogLines(w, r, append(line, '\n'), ended, given)
}

// v2WriteLogStream is get_log's NDJSON answer: one message a line, every
// field. Its Airflow-Continuation-Token is the request's metadata (given,
// download_logs set), signed before the stream is read, so it is there
// unless the request's token said the log had ended.
func (s *server) v2WriteLogStream(w http.ResponseWriter, r *http.Request, content []v2LogMessage, ended bool, given map[string]json.RawMessage) {
	d := s.dialV2
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, m := range content {
		if err := enc.Encode(m); err != nil {
			d.answerError(s, w, r, fmt.Errorf("render log: %w", err))
			return
		}
	}
	s.v2WriteLogLines(w, r, b.Bytes(), ended, given)
}

// v2WriteLogLines sends an NDJSON log: the lines, and the
// Airflow-Continuation-Token of the request's metadata unless it said the
// log had ended (the header is set before the stream is read).
func (s *server) v2WriteLogLines(w http.ResponseWriter, r *http.Request, lines []byte, ended bool, given map[string]json.RawMessage) {
	d := s.dialV2
	if !ended {
		t, err := signJSON(s.v1Secret, given)
		if err != nil {
			d.answerError(s, w, r, err)
			return
		}
		w.Header().Set("Airflow-Continuation-Token", t)
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(lines)
	}
}

// splitLogLines is a log's text as the lines the file task handler reads
// (empty lines dropped, as its stream skips them).
func splitLogLines(text string) []string {
	var out []string
	for l := range strings.SplitSeq(text, "\n") {
		if l = strings.TrimSuffix(l, "\r"); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// v2GetExternalLogURL is get_external_log_url with Airflow's default task
// log handler, which has no external link: 400 once the parameters check
// (try_number a PositiveInt, the row's bound).
func (s *server) v2GetExternalLogURL(req *apiRequest) (any, error) {
	return nil, &v2Error{status: http.StatusBadRequest, detail: v2LogNoExternal}
}
