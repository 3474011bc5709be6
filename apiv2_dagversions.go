package main

// Airflow 3's DAG versions (/api/v2/dags/{dag_id}/dagVersions): the
// answers of Airflow 3.2.1's core_api/routes/public/dag_versions.py in
// the models of datamodels/dag_versions.py.

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// routes/public/dag_versions.py get_dag_version.
const v2DagVersionNotFoundFmt = "The DagVersion with dag_id: `%s` and version_number: `%s` was not found"

// v2DagVersion is DagVersionResponse.
type v2DagVersion struct {
	ID             string  `json:"id"`
	VersionNumber  int64   `json:"version_number"`
	DagID          string  `json:"dag_id"`
	BundleName     *string `json:"bundle_name"`
	BundleVersion  *string `json:"bundle_version"`
	CreatedAt      v2When  `json:"created_at"`
	DagDisplayName string  `json:"dag_display_name"`
	// BundleURL is the bundle's view URL: a local bundle has none.
	BundleURL *string `json:"bundle_url"`
}

// v2DagVersionCollection is DAGVersionCollectionResponse.
type v2DagVersionCollection struct {
	DagVersions  []v2DagVersion `json:"dag_versions"`
	TotalEntries int            `json:"total_entries"`
}

// v2DagVersion renders a version as DagVersionResponse does: its
// dag_display_name is the DAG model's (AliasPath("dag_model",
// "dag_display_name") in datamodels/dag_versions.py), wherever the
// version is nested.
func (s *server) v2DagVersion(v *DagVersion) v2DagVersion {
	return s.v2DagVersionNamed(v, s.v2DagDisplayName(v.DagID))
}

// v2DagVersionNamed is v2DagVersion with its DAG's display name at hand.
func (s *server) v2DagVersionNamed(v *DagVersion, displayName string) v2DagVersion {
	return v2DagVersion{ID: v.ID, VersionNumber: v.Number, DagID: v.DagID, BundleName: ptr(bundleName),
		CreatedAt: v2When(v.CreatedAt), DagDisplayName: displayName}
}

var v2DagVersionPhrases = phrasebook{
	faultDagVersionNotFound: func(e *opError) error {
		return v2NotFound(v2DagVersionNotFoundFmt, e.value("dag_id"), e.value("version_number"))
	},
}

// V2GetDagVersion is get_dag_version.
func (s *server) V2GetDagVersion(req *apiRequest) (any, error) {
	n, _ := strconv.ParseInt(strings.TrimSpace(req.param("version_number")), 10, 64)
	if f, err := strconv.ParseFloat(strings.TrimSpace(req.param("version_number")), 64); n == 0 && err == nil {
		n = int64(f) // pydantic takes a whole float ("2.0")
	}
	v, err := s.ops.dagVersion(req.param("dag_id"), n)
	if err != nil {
		return nil, v2DagVersionPhrases.phrase(err)
	}
	return s.v2DagVersion(v), nil
}

// v2DagVersionOrder are the attributes get_dag_versions sorts by.
var v2DagVersionOrder = map[string]func(a, b *DagVersion) int{
	"id":             func(a, b *DagVersion) int { return strings.Compare(a.ID, b.ID) },
	"version_number": func(a, b *DagVersion) int { return cmp.Compare(a.Number, b.Number) },
	"bundle_name":    func(a, b *DagVersion) int { return 0 },
	"bundle_version": func(a, b *DagVersion) int { return 0 },
}

// V2GetDagVersions is get_dag_versions: one DAG's versions, or every
// DAG's with dag_id "~".
func (s *server) V2GetDagVersions(req *apiRequest) (any, error) {
	dagID := req.param("dag_id")
	q := req.query
	if dagID == "~" {
		dagID = ""
	} else if d, err := s.ops.dagByID(dagID, ""); err != nil || d.Row.Def == nil {
		if err != nil {
			return nil, v2DagGetPhrases.phrase(err)
		}
		return nil, v2NotFound(v2DagNotFoundFmt, dagID)
	}
	keys, err := v2OrderBy(q, "id", []string{"id", "version_number", "bundle_name", "bundle_version"}, nil)
	if err != nil {
		return nil, err
	}
	number, hasNumber := q.str("version_number")
	bundle, hasBundle := q.str("bundle_name")
	_, hasBundleVersion := q.str("bundle_version")
	byKey := keys[0].attr == "id" || keys[0].attr == "version_number"
	if !hasNumber && (!hasBundle || bundle == bundleName) && !hasBundleVersion && byKey && (dagID != "" || keys[0].attr == "id") {
		// Every DAG's versions by id, one DAG's by id or version_number
		// (unique: the keys after it never decide; the bundle is every
		// version's), page from an index; filtered or otherwise ordered
		// lists sort.
		var page []*DagVersion
		var total int
		var err error
		if dagID == "" {
			page, total, err = s.ops.dagVersionPage(keys[0].desc, v2Page(q))
		} else {
			page, total, err = s.ops.dagVersionPageOf(dagID, keys[0].attr == "version_number", keys[0].desc, v2Page(q))
		}
		if err != nil {
			return nil, err
		}
		out := v2DagVersionCollection{DagVersions: []v2DagVersion{}, TotalEntries: total}
		for _, v := range page {
			out.DagVersions = append(out.DagVersions, s.v2DagVersion(v))
		}
		return out, nil
	}
	all, err := s.ops.dagVersions(dagID)
	if err != nil {
		return nil, err
	}
	var vs []*DagVersion
	for _, v := range all {
		if hasNumber && strconv.FormatInt(v.Number, 10) != strings.TrimSpace(number) ||
			hasBundle && bundle != bundleName || hasBundleVersion {
			continue
		}
		vs = append(vs, v)
	}
	// Ordered by the keys, then the primary key (id) in the first key's
	// direction, SortParam.to_orm's final discriminator (c57fba0e
	// common/parameters.py:326-330).
	pkDesc := keys[0].desc
	slices.SortStableFunc(vs, func(a, b *DagVersion) int {
		for _, k := range keys {
			c := v2DagVersionOrder[k.attr](a, b)
			if k.desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		if pkDesc {
			return strings.Compare(b.ID, a.ID)
		}
		return strings.Compare(a.ID, b.ID)
	})
	out := v2DagVersionCollection{DagVersions: []v2DagVersion{}, TotalEntries: len(vs)}
	for _, v := range v2Window(vs, v2Page(q)) {
		out.DagVersions = append(out.DagVersions, s.v2DagVersion(v))
	}
	return out, nil
}
