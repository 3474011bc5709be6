package main

// Airflow 3's human-in-the-loop routes (issue #21): core_api/routes/
// public/hitl.py, answered as Airflow answers them when no task uses a
// HITL operator: no detail to list, and a 404 for any one asked
// (ops_hitl.go).

import (
	"fmt"
	"net/http"
)

// v2HITLDetailCollection is datamodels/hitl.py HITLDetailCollection with
// no detail.
type v2HITLDetailCollection struct {
	HITLDetails  []struct{} `json:"hitl_details"`
	TotalEntries int        `json:"total_entries"`
}

// v2HITLOrders are get_hitl_details' sort attributes of the detail, and
// v2HITLRenames the task instance's and run's it also sorts by.
var (
	v2HITLOrders  = []string{"ti_id", "subject", "responded_at", "created_at", "responded_by_user_id", "responded_by_user_name"}
	v2HITLRenames = map[string]string{"dag_id": "dag_id", "run_id": "run_id", "task_display_name": "task_display_name",
		"run_after": "run_after", "rendered_map_index": "rendered_map_index", "task_instance_operator": "operator",
		"task_instance_state": "state"}
)

// v2HITLPhrases words the faults of these routes (hitl.py
// _get_task_instance_with_hitl_detail).
var v2HITLPhrases = phrasebook{
	faultHITLTaskInstanceNotFound: func(e *opError) error {
		return &v2Error{status: http.StatusNotFound, detail: fmt.Sprintf(
			"The Task Instance with dag_id: `%s`, run_id: `%s`, task_id: `%s` and map_index: `%s` was not found",
			e.value("dag_id"), e.value("run_id"), e.value("task_id"), e.value("map_index"))}
	},
	faultHITLDetailMissing: func(e *opError) error {
		return &v2Error{status: http.StatusNotFound, detail: "Human-in-the-loop detail does not exist for Task Instance with id " + e.value("ti_id")}
	},
}

// v2UpdateHITLDetailPayload is datamodels/hitl.py UpdateHITLDetailPayload:
// at least one chosen option, and the params input (a mapping, empty by
// default). Its base model ignores unknown fields.
var v2UpdateHITLDetailPayload = &v2Model{name: "UpdateHITLDetailPayload", extraAllowed: true, fields: []v2Field{
	{name: "chosen_options", typ: v2Type{kind: v2List, elem: &v2Type{kind: v2String}, minLen: new(1)}, required: true},
	{name: "params_input", typ: v2TDict},
}}

// v2GetHITLDetails is get_hitl_details: its order checked, and no detail
// for any run ("~" included), as no task instance has one.
func v2GetHITLDetails(req *apiRequest) (any, error) {
	if _, err := v2OrderBy(req.query, "ti_id", v2HITLOrders, v2HITLRenames); err != nil {
		return nil, err
	}
	return v2HITLDetailCollection{HITLDetails: []struct{}{}}, nil
}

// v2HITLDetail answers get_hitl_detail, get_hitl_detail_try and
// update_hitl_detail: the task instance's 404, or its detail's.
func (s *server) v2HITLDetail(req *apiRequest) error {
	var try *int64
	if req.param("try_number") != "" {
		if n := req.v2PathInt("try_number"); n != -1 { // get_hitl_detail_try: -1 is the current try
			try = &n
		}
	}
	return v2HITLPhrases.phrase(s.ops.hitlDetail(req.param("dag_id"), req.param("dag_run_id"), req.param("task_id"),
		req.v2PathInt("map_index"), try))
}

// v2HITLRoutes are hitl.py's rows, in its order.
func (s *server) v2HITLRoutes(t *routeTable) {
	d := t.dialect
	const one = "/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/{map_index}/hitlDetails"
	t.add(http.MethodPatch, one, d.refused(s, s.v2HITLDetail), withPathInts("map_index"), v2Body(v2UpdateHITLDetailPayload), withV2Action("update_hitl_detail"))
	t.add(http.MethodGet, one, d.refused(s, s.v2HITLDetail), withPathInts("map_index"))
	t.add(http.MethodGet, one+"/tries/{try_number}", d.refused(s, s.v2HITLDetail), withPathInts("map_index", "try_number"))
	t.add(http.MethodGet, "/dags/{dag_id}/dagRuns/{dag_run_id}/hitlDetails", d.answer(s, v2GetHITLDetails), withQuery(
		append([]v1Param{qV2Limit, qV2Offset, qV2OrderBy, qV2Str("dag_id_pattern"), qV2Str("task_id"), qV2Str("task_id_pattern"),
			qV2Int("map_index"), qV2Strs("state"), qV2Bool("response_received"), qV2Strs("responded_by_user_id"),
			qV2Strs("responded_by_user_name"), qV2Str("subject_search"), qV2Str("body_search")}, qV2DateRange("created_at")...)...),
		// state is the task instance lists' QueryTIStateFilter (c57fba0e
		// routes/public/hitl.py:288): a name that is no state is its 422.
		withDependency(v2TIListTransforms))
}
