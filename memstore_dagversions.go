package main

// DAG versions (Airflow 3's dag_version table): a DAG gets a new version
// each time its definition changes, numbered from 1 per DAG
// (airflow-core/src/airflow/models/dag_version.py: version_number, a
// uuid7 id; a serialized DAG whose hash changed writes a new version,
// models/serialized_dag.py write_dag). The store records them for every
// DAG it loads; only Airflow 3's API shows them.

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

const (
	tableDagVersions   = "dag_versions"
	indexVersionUUID   = "uuid"     // dag versions: the version's id
	indexDagVersionIDs = "dag_uuid" // dag versions: (dag_id, id)
)

// DagVersion is one version of a DAG's definition.
type DagVersion struct {
	ID        string // a UUID (version 7, as Airflow's uuid7)
	DagID     string
	Number    int64 // version_number: 1, 2, ... per DAG
	CreatedAt time.Time
	// Hash identifies the definition the version was made for: a change
	// of definition is a change of hash.
	Hash string
}

// dagVersionsTable holds every DAG's versions, by (dag_id, number), by
// id, and by (dag_id, id) for a page of one DAG's versions by id (a
// version is written when a DAG's definition changes, never by a run).
func dagVersionsTable() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableDagVersions,
		Indexes: map[string]*memdb.IndexSchema{
			indexID: {Name: indexID, Unique: true, Indexer: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
				stringField[DagVersion]{func(v *DagVersion) string { return v.DagID }},
				intField[DagVersion]{func(v *DagVersion) int64 { return v.Number }},
			}}},
			indexVersionUUID: {Name: indexVersionUUID, Unique: true, Indexer: stringField[DagVersion]{func(v *DagVersion) string { return v.ID }}},
			indexDagVersionIDs: {Name: indexDagVersionIDs, Unique: true, Indexer: stringPairIndex(
				func(v *DagVersion) string { return v.DagID }, func(v *DagVersion) string { return v.ID })},
		},
	}
}

// dagHash fingerprints a definition: its exported fields as JSON (maps in
// key order), so that the same file read again hashes the same. A
// definition JSON cannot write hashes as its DAG id and file alone.
func dagHash(d *DAG) string {
	b, err := json.Marshal(d)
	if err != nil {
		b = []byte(d.DagID + "\x00" + d.FilePath)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// newUUID7 is a version 7 UUID for t: the Unix time in milliseconds, then
// bits that stand for RFC 9562 §5.7's random ones, drawn from seed, so
// that two stores loading the same DAGs at the same time agree on their
// versions' ids.
func newUUID7(t time.Time, seed string) string {
	var u [16]byte
	sum := sha256.Sum256([]byte(seed))
	copy(u[6:], sum[:10])
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(t.UnixMilli()))
	copy(u[:6], ms[2:])
	u[6] = u[6]&0x0f | 0x70
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// nextUUID is the UUID after id (its hex digits counted up by one, the
// version and variant digits kept).
func nextUUID(id string) string {
	b := []byte(id)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '-' || i == 14 || i == 19 { // the version digit, the variant digit
			continue
		}
		if b[i] == 'f' {
			b[i] = '0'
			continue
		}
		if b[i] == '9' {
			b[i] = 'a'
		} else {
			b[i]++
		}
		break
	}
	return string(b)
}

// recordVersionTxn adds a version of d's DAG when d differs from the
// latest one (or the DAG has none yet), made at now.
func recordVersionTxn(txn *memdb.Txn, d *DAG, now time.Time) error {
	hash := dagHash(d)
	latest, err := latestVersionTxn(txn, d.DagID)
	if err != nil {
		return err
	}
	number := int64(1)
	if latest != nil {
		if latest.Hash == hash {
			return nil
		}
		number = latest.Number + 1
	}
	id := newUUID7(now, fmt.Sprintf("%s\x00%d\x00%s", d.DagID, number, hash))
	// Ids grow with every version, as uuid7's do within a millisecond:
	// ordering by id is ordering by creation.
	last, err := txn.Last(tableDagVersions, indexVersionUUID)
	if err != nil {
		return fmt.Errorf("find the last version id: %w", err)
	}
	if last != nil && id <= last.(*DagVersion).ID {
		id = nextUUID(last.(*DagVersion).ID)
	}
	v := &DagVersion{ID: id, DagID: d.DagID, Number: number, CreatedAt: now.UTC(), Hash: hash}
	if err := txn.Insert(tableDagVersions, v); err != nil {
		return fmt.Errorf("insert version %d of %s: %w", number, d.DagID, err)
	}
	return nil
}

// latestVersionTxn is the DAG's highest version, nil when it has none.
func latestVersionTxn(txn *memdb.Txn, dagID string) (*DagVersion, error) {
	it, err := txn.ReverseLowerBound(tableDagVersions, indexID, dagID, int64(1<<62))
	if err != nil {
		return nil, fmt.Errorf("find the latest version of %s: %w", dagID, err)
	}
	raw := it.Next()
	if raw == nil {
		return nil, nil
	}
	if v := raw.(*DagVersion); v.DagID == dagID {
		return v, nil
	}
	return nil, nil
}

// LatestDagVersion is the DAG's highest version, or errNotFound.
func (s *Store) LatestDagVersion(dagID string) (*DagVersion, error) {
	v, err := latestVersionTxn(s.read(), dagID)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, errNotFound
	}
	return v, nil
}

// DagVersionByNumber is one version of a DAG, or errNotFound.
func (s *Store) DagVersionByNumber(dagID string, number int64) (*DagVersion, error) {
	raw, err := s.read().First(tableDagVersions, indexID, dagID, number)
	if err != nil {
		return nil, fmt.Errorf("look up version %d of %s: %w", number, dagID, err)
	}
	if raw == nil {
		return nil, errNotFound
	}
	return raw.(*DagVersion), nil
}

// DagVersions lists the versions of one DAG (dagID "": of every DAG) in
// (dag_id, number) order.
func (s *Store) DagVersions(dagID string) ([]*DagVersion, error) {
	txn := s.read()
	var it memdb.ResultIterator
	var err error
	if dagID == "" {
		it, err = txn.Get(tableDagVersions, indexID)
	} else {
		it, err = txn.Get(tableDagVersions, indexID+"_prefix", dagID)
	}
	if err != nil {
		return nil, fmt.Errorf("list dag versions: %w", err)
	}
	var out []*DagVersion
	read := 0
	defer func() {
		if s.rowsRead != nil {
			s.rowsRead(read)
		}
	}()
	for raw := it.Next(); raw != nil; raw = it.Next() {
		read++
		if v := raw.(*DagVersion); dagID == "" || v.DagID == dagID {
			out = append(out, v)
		}
	}
	return out, nil
}

// deleteVersionsTxn removes a DAG's versions, as deleting a DagModel
// cascades to its dag_version rows.
func deleteVersionsTxn(txn *memdb.Txn, dagID string) error {
	vs, err := txn.Get(tableDagVersions, indexID+"_prefix", dagID)
	if err != nil {
		return fmt.Errorf("list versions of %s: %w", dagID, err)
	}
	var doomed []*DagVersion
	for raw := vs.Next(); raw != nil; raw = vs.Next() {
		if v := raw.(*DagVersion); v.DagID == dagID {
			doomed = append(doomed, v)
		}
	}
	for _, v := range doomed {
		if err := txn.Delete(tableDagVersions, v); err != nil {
			return fmt.Errorf("delete version %d of %s: %w", v.Number, dagID, err)
		}
	}
	return nil
}

// DagVersionByID is the version with the given id (a run's or a task
// instance's DagVersionID), or errNotFound.
func (s *Store) DagVersionByID(id string) (*DagVersion, error) {
	raw, err := s.read().First(tableDagVersions, indexVersionUUID, id)
	if err != nil {
		return nil, fmt.Errorf("look up dag version %s: %w", id, err)
	}
	if raw == nil {
		return nil, errNotFound
	}
	return raw.(*DagVersion), nil
}
