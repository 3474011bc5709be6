package main

// Backfills on /api/v2 (edition 3): airflow-core/src/airflow/api_fastapi/
// core_api/routes/public/backfills.py over the operations of
// ops_backfills.go, in the shapes of datamodels/backfills.py as Airflow
// 3.2.1's document has them (no task_id_pattern, no selected_task_ids).

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Airflow's texts (routes/public/backfills.py, models/backfill.py at 3.2.1),
// each as the 3.2.0-era main has it (Phinhas214/airflow c57fba0e,
// 2026-03-20), whose OpenAPI document is 3.2.1's but for one schema. A DAG
// without a schedule is DagNoScheduleException raised by _create_backfill
// (after the dag and allowed_run_types checks, before the running-backfill
// one) and by _do_dry_run (after _validate_backfill_params), which both
// routes turn into RequestValidationError(str(e)): a 422 whose detail is
// the text itself, not pydantic's list (backfills.py lines 262-268, 309-315).
const (
	v2BackfillNotFound    = "Backfill not found"                                 // backfills.py get_backfill
	v2BackfillNoID        = "Could not find backfill with id %d"                 // pause/unpause/cancel_backfill
	v2BackfillCompleted   = "Backfill is already completed."                     // pause/unpause/cancel_backfill
	v2BackfillDagNotFound = "Could not find dag %s"                              // create_backfill, create_backfill_dry_run
	v2BackfillRunning     = "There is already a running backfill for dag %s"     // create_backfill
	v2BackfillNoSchedule  = "%s has no schedule"                                 // DagNoScheduleException
	v2BackfillNotAllowed  = "Dag with dag_id: '%s' does not allow backfill runs" // DagRunTypeNotAllowed (models/backfill.py:573)
	v2BackfillReverse     = "Backfill cannot be run in reverse when the Dag has tasks where depends_on_past=True."
	v2BackfillReprocess   = "Dag has tasks for which depends_on_past=True. You must set reprocess behavior to reprocess completed or reprocess failed."
	v2BackfillFutureDates = "Backfill cannot be executed for future dates." // InvalidBackfillDate
)

// v2BackfillPostBody is BackfillPostBody (StrictBaseModel) at 3.2.1.
var v2BackfillPostBody = &v2Model{name: "BackfillPostBody", fields: []v2Field{
	{name: "dag_id", typ: v2TStr, required: true},
	{name: "from_date", typ: v2TTimeAsSent, required: true},
	{name: "to_date", typ: v2TTimeAsSent, required: true},
	{name: "run_backwards", typ: v2TBool},
	{name: "dag_run_conf", typ: v2TDict},
	{name: "reprocess_behavior", typ: v2TEnum(reprocessBehaviors...)},
	{name: "max_active_runs", typ: v2TInt},
	{name: "run_on_latest_version", typ: v2TBool},
}}

// v2BackfillResponse is BackfillResponse, fields in its order.
type v2BackfillResponse struct {
	ID                int64           `json:"id"`
	DagID             string          `json:"dag_id"`
	FromDate          v2Zoned         `json:"from_date"`
	ToDate            v2Zoned         `json:"to_date"`
	DagRunConf        json.RawMessage `json:"dag_run_conf"`
	IsPaused          bool            `json:"is_paused"`
	ReprocessBehavior string          `json:"reprocess_behavior"`
	MaxActiveRuns     int             `json:"max_active_runs"`
	CreatedAt         v2When          `json:"created_at"`
	CompletedAt       *v2When         `json:"completed_at"`
	UpdatedAt         v2When          `json:"updated_at"`
	DagDisplayName    string          `json:"dag_display_name"`
}

type v2BackfillCollection struct {
	Backfills    []v2BackfillResponse `json:"backfills"`
	TotalEntries int                  `json:"total_entries"`
}

// v2DryRunBackfill is DryRunBackfillResponse: airlite's schedules are not
// partitioned, so partition_key and partition_date are null.
type v2DryRunBackfill struct {
	LogicalDate   *v2Zoned `json:"logical_date"`
	PartitionKey  *string  `json:"partition_key"`
	PartitionDate *v2When  `json:"partition_date"`
}

type v2DryRunBackfillCollection struct {
	Backfills    []v2DryRunBackfill `json:"backfills"`
	TotalEntries int                `json:"total_entries"`
}

// v2Backfill renders a backfill; its dag_display_name is the DAG model's
// (AliasPath("dag_model", "dag_display_name") in datamodels/backfills.py).
func (s *server) v2Backfill(b *Backfill) v2BackfillResponse {
	conf := b.DagRunConf
	if conf == nil {
		conf = json.RawMessage("null")
	}
	return v2BackfillResponse{ID: b.ID, DagID: b.DagID, FromDate: v2Zoned(b.FromDate.UTC()), ToDate: v2Zoned(b.ToDate.UTC()), DagRunConf: conf,
		IsPaused: b.IsPaused, ReprocessBehavior: b.ReprocessBehavior, MaxActiveRuns: b.MaxActiveRuns, CreatedAt: v2When(b.CreatedAt),
		CompletedAt: v2At(b.CompletedAt), UpdatedAt: v2When(b.UpdatedAt), DagDisplayName: s.v2DagDisplayName(b.DagID)}
}

// v2BackfillRequest reads a checked BackfillPostBody, with its defaults.
func v2BackfillRequest(req *apiRequest) *backfillRequest {
	body := req.body
	br := &backfillRequest{dagID: body["dag_id"].(string), from: body["from_date"].(time.Time), to: body["to_date"].(time.Time),
		reprocess: "none", maxActiveRuns: 10, conf: json.RawMessage("{}")}
	if v, ok := body["run_backwards"].(bool); ok {
		br.runBackwards = v
	}
	if v, ok := body["reprocess_behavior"].(string); ok {
		br.reprocess = v
	}
	if v, ok := body["max_active_runs"].(int64); ok {
		br.maxActiveRuns = int(v)
	}
	if v, ok := body["dag_run_conf"]; ok {
		if raw, err := json.Marshal(v); err == nil {
			br.conf = raw
		}
	}
	if req.caller.user != "" {
		user := req.caller.user
		br.user = &user
	}
	return br
}

// v2BackfillRefusal words the operations' refusals of a backfill request
// as create_backfill and create_backfill_dry_run answer them.
func v2BackfillRefusal(err error, dagID string) error {
	var detail string
	status := http.StatusUnprocessableEntity // RequestValidationError(str(e))
	switch {
	case errors.Is(err, errBackfillDagNotFound):
		status, detail = http.StatusNotFound, fmt.Sprintf(v2BackfillDagNotFound, dagID)
	case errors.Is(err, errBackfillRunning):
		status, detail = http.StatusConflict, fmt.Sprintf(v2BackfillRunning, dagID)
	case errors.Is(err, errBackfillNotAllowed):
		// DagRunTypeNotAllowed's own 400 (backfills.py:257-261).
		status, detail = http.StatusBadRequest, fmt.Sprintf(v2BackfillNotAllowed, dagID)
	case errors.Is(err, errBackfillNoSchedule):
		detail = fmt.Sprintf(v2BackfillNoSchedule, dagID)
	case errors.Is(err, errBackfillReverse):
		detail = v2BackfillReverse
	case errors.Is(err, errBackfillReprocess):
		detail = v2BackfillReprocess
	case errors.Is(err, errBackfillFuture):
		detail = v2BackfillFutureDates
	default:
		return err // errBackfillNoRuns among them: Airflow's RuntimeError, a 500
	}
	return &v2Error{status: status, detail: detail}
}

// v2BackfillID is the path's backfill_id, a NonNegativeInt.
func v2BackfillID(req *apiRequest) (int64, error) {
	raw := req.path["backfill_id"]
	if issue, ok := v2CheckScalar(v1Param{name: "backfill_id", kind: paramInteger, minimum: minimum(0)}, raw, []any{"path", "backfill_id"}); !ok {
		return 0, v2Invalid([]v2Issue{issue})
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return 0, &v2Error{status: http.StatusNotFound, detail: v2BackfillNotFound}
	}
	return id, nil
}

// V2ListBackfills is GET /backfills: a DAG's backfills (dag_id required),
// order_by id.
func (s *server) V2ListBackfills(req *apiRequest) (any, error) {
	keys, err := v2OrderBy(req.query, "id", []string{"id"}, nil)
	if err != nil {
		return nil, err
	}
	dagID, _ := req.query.str("dag_id")
	page, total, err := s.ops.backfillPage(dagID, len(keys) > 0 && keys[0].desc, v2Page(req.query))
	if err != nil {
		return nil, err
	}
	out := v2BackfillCollection{Backfills: make([]v2BackfillResponse, len(page)), TotalEntries: total}
	for i, b := range page {
		out.Backfills[i] = s.v2Backfill(b)
	}
	return out, nil
}

// V2GetBackfill is GET /backfills/{backfill_id}.
func (s *server) V2GetBackfill(req *apiRequest) (any, error) {
	id, err := v2BackfillID(req)
	if err != nil {
		return nil, err
	}
	b, err := s.ops.backfill(id)
	if errors.Is(err, errNotFound) {
		return nil, &v2Error{status: http.StatusNotFound, detail: v2BackfillNotFound}
	}
	if err != nil {
		return nil, err
	}
	return s.v2Backfill(b), nil
}

// v2BackfillChange answers pause, unpause and cancel: change is the
// operation on the backfill the path names.
func (s *server) v2BackfillChange(change func(id int64) (*Backfill, error)) func(req *apiRequest) (any, error) {
	return func(req *apiRequest) (any, error) {
		id, err := v2BackfillID(req)
		if err != nil {
			return nil, err
		}
		b, err := change(id)
		switch {
		case errors.Is(err, errNotFound):
			return nil, &v2Error{status: http.StatusNotFound, detail: fmt.Sprintf(v2BackfillNoID, id)}
		case errors.Is(err, errBackfillCompleted):
			return nil, &v2Error{status: http.StatusConflict, detail: v2BackfillCompleted}
		case err != nil:
			return nil, err
		}
		return s.v2Backfill(b), nil
	}
}

// V2CreateBackfill is POST /backfills (answered 200): its from_date and
// to_date as the body gives them, offsets kept, where a read answers them
// in UTC: create_backfill validates the Backfill object _create_backfill
// made from them, never read back (c57fba0e routes/public/backfills.py
// create_backfill; settings.py's sessions keep objects at commit,
// expire_on_commit=False).
func (s *server) V2CreateBackfill(req *apiRequest) (any, error) {
	br := v2BackfillRequest(req)
	b, err := s.ops.createBackfill(br)
	if err != nil {
		return nil, v2BackfillRefusal(err, br.dagID)
	}
	out := s.v2Backfill(b)
	out.FromDate, out.ToDate = v2Zoned(br.from), v2Zoned(br.to)
	return out, nil
}

// V2CreateBackfillDryRun is POST /backfills/dry_run: the dates the
// backfill would run, nothing stored.
func (s *server) V2CreateBackfillDryRun(req *apiRequest) (any, error) {
	br := v2BackfillRequest(req)
	infos, err := s.ops.backfillDryRun(br)
	if err != nil {
		return nil, v2BackfillRefusal(err, br.dagID)
	}
	out := v2DryRunBackfillCollection{Backfills: make([]v2DryRunBackfill, len(infos)), TotalEntries: len(infos)}
	for i, info := range infos {
		logical := v2Zoned(backfillAsGiven(info.logical, br.from))
		out.Backfills[i] = v2DryRunBackfill{LogicalDate: &logical}
	}
	return out, nil
}
