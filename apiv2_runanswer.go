package main

// The v2 trigger's answer (DAGRunResponse) written field by field: the
// bytes encodeV2JSON writes for a v2DagRun, without encoding/json's walk of
// the struct by reflection, a quarter of the v2 trigger's own CPU outside
// the store under load (TestV2RunAnswer_SameAsEncoder checks the bytes).

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
)

// renderV2Run is r as writeV2JSON answers it.
func renderV2Run(r *v2DagRun) (*v2Rendered, error) {
	buf := v2Buffers.Get().(*bytes.Buffer)
	out, err := appendV2Run(buf.AvailableBuffer(), r)
	if err != nil {
		releaseV2Buffer(buf)
		return nil, err
	}
	buf.Write(out) // out is buf's own space unless it grew past it
	return &v2Rendered{body: buf.Bytes(), pooled: buf}, nil
}

// appendV2Run appends r as encodeV2JSON writes it.
func appendV2Run(b []byte, r *v2DagRun) ([]byte, error) {
	b = append(b, `{"dag_run_id":`...)
	b = appendV2JSONString(b, r.DagRunID)
	b = append(b, `,"dag_id":`...)
	b = appendV2JSONString(b, r.DagID)
	for _, f := range []struct {
		name string
		at   *v2When
	}{{`,"logical_date":`, r.LogicalDate}, {`,"queued_at":`, r.QueuedAt}, {`,"start_date":`, r.StartDate}, {`,"end_date":`, r.EndDate}} {
		b = appendV2At(append(b, f.name...), f.at)
	}
	b = append(b, `,"duration":`...)
	if r.Duration == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, pyFloatRepr(float64(*r.Duration))...)
	}
	b = appendV2At(append(b, `,"data_interval_start":`...), r.DataIntervalStart)
	b = appendV2At(append(b, `,"data_interval_end":`...), r.DataIntervalEnd)
	b = appendV2At(append(b, `,"run_after":`...), &r.RunAfter)
	b = appendV2At(append(b, `,"last_scheduling_decision":`...), r.LastSchedulingDecision)
	b = append(b, `,"run_type":`...)
	b = appendV2JSONString(b, r.RunType)
	b = append(b, `,"state":`...)
	b = appendV2JSONString(b, r.State)
	b = appendV2StringOrNull(append(b, `,"triggered_by":`...), r.TriggeredBy)
	b = appendV2StringOrNull(append(b, `,"triggering_user_name":`...), r.TriggeringUserName)
	b = append(b, `,"conf":`...)
	if r.Conf == nil {
		b = append(b, "null"...)
	} else {
		// encoding/json compacts a RawMessage (HTML escaping off, as
		// encodeV2JSON sets it), and refuses one that is no JSON.
		conf := bytes.NewBuffer(b)
		if err := json.Compact(conf, r.Conf); err != nil {
			return nil, err
		}
		b = conf.Bytes()
	}
	b = appendV2StringOrNull(append(b, `,"note":`...), r.Note)
	b = append(b, `,"dag_versions":[`...)
	for i, v := range r.DagVersions {
		if i > 0 {
			b = append(b, ',')
		}
		dv, ok := v.(v2DagVersion)
		if !ok {
			var other bytes.Buffer
			if err := encodeV2JSON(&other, v); err != nil {
				return nil, err
			}
			b = append(b, other.Bytes()...)
			continue
		}
		b = append(b, `{"id":`...)
		b = appendV2JSONString(b, dv.ID)
		b = strconv.AppendInt(append(b, `,"version_number":`...), dv.VersionNumber, 10)
		b = appendV2JSONString(append(b, `,"dag_id":`...), dv.DagID)
		b = appendV2StringOrNull(append(b, `,"bundle_name":`...), dv.BundleName)
		b = appendV2StringOrNull(append(b, `,"bundle_version":`...), dv.BundleVersion)
		b = appendV2At(append(b, `,"created_at":`...), &dv.CreatedAt)
		b = appendV2JSONString(append(b, `,"dag_display_name":`...), dv.DagDisplayName)
		b = appendV2StringOrNull(append(b, `,"bundle_url":`...), dv.BundleURL)
		b = append(b, '}')
	}
	if r.DagVersions == nil {
		b = append(b[:len(b)-1], "null"...)
	} else {
		b = append(b, ']')
	}
	b = appendV2StringOrNull(append(b, `,"bundle_version":`...), r.BundleVersion)
	b = appendV2JSONString(append(b, `,"dag_display_name":`...), r.DagDisplayName)
	b = appendV2StringOrNull(append(b, `,"partition_key":`...), r.PartitionKey)
	return append(b, '}'), nil
}

// appendV2At appends a datetime field: null, or v2When's text quoted.
func appendV2At(b []byte, at *v2When) []byte {
	if at == nil {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = appendV2Time(b, time.Time(*at))
	return append(b, '"')
}

// appendV2StringOrNull appends a nullable string field.
func appendV2StringOrNull(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendV2JSONString(b, *s)
}

// appendV2JSONString appends s as encodeV2JSON writes a string: printable
// ASCII but '"' and '\' as it is; anything else through encoding/json
// (with HTML escaping off), for its escapes and its repair of invalid
// UTF-8.
func appendV2JSONString(b []byte, s string) []byte {
	if jsonPlainLen(s) < len(s) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s) // a string always encodes
		return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendV2InputJSON appends a decoded body's value (decodePyJSON's: pyDict,
// []any, string, json.Number, bool, nil) as json.Marshal(v2Input(v))
// writes it, HTML escaping on, without its reflection and its copies:
// the conf a trigger stores (TestV2InputJSON_SameAsMarshal).
func appendV2InputJSON(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case pyDict:
		b = append(b, '{')
		for i, f := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendHTMLJSONString(b, f.key)
			b = append(b, ':')
			var err error
			if b, err = appendV2InputJSON(b, f.val); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		for i, item := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendV2InputJSON(b, item); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case string:
		return appendHTMLJSONString(b, x), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case nil:
		return append(b, "null"...), nil
	}
	out, err := json.Marshal(v2Input(v)) // json.Number checked, anything else
	if err != nil {
		return nil, err
	}
	return append(b, out...), nil
}

// appendHTMLJSONString appends s as json.Marshal writes a string: printable
// ASCII but '"', '\', '<', '>' and '&' as it is, anything else through
// json.Marshal.
func appendHTMLJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			out, _ := json.Marshal(s) // a string always encodes
			return append(b, out...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
