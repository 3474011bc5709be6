package main

// Task-instance ids: version 7 UUIDs made several at a time.

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"sync"
	"time"
)

// taskInstanceIDs hands out every task-instance id of the process, so
// that they grow in the order they are made (the blocks of ti_order rely
// on a run's ids growing and lying past those made before). It is state,
// like the clock google/uuid keeps for its NewV7, not a hook.
var taskInstanceIDs uuid7Source

// uuid7Source makes version 7 UUIDs (RFC 9562 section 5.7) as google/uuid's
// NewV7 does, which airlite used before (Airflow 3 makes TaskInstance.id
// with uuid7(), airflow-core/src/airflow/models/taskinstance.py): 48 bits of
// Unix milliseconds, then in rand_a 12 bits of the millisecond's fraction,
// raised past the last id's when the clock has not moved, so that the ids of
// a process grow; rand_b random. What differs is the cost: the random bytes
// come from crypto/rand 64 ids at a time, not 16 bytes an id, and a run's
// ids are written into one string, one allocation for all of them.
type uuid7Source struct {
	mu   sync.Mutex
	last int64 // the last id's milliseconds<<12 | fraction
	rnd  [64 * 8]byte
	used int // bytes of rnd handed out; len(rnd) when it needs filling
}

// fill sets each of ids to a new id, growing from ids[0] on.
func (s *uuid7Source) fill(ids []string) {
	if len(ids) == 0 {
		return
	}
	var b strings.Builder
	b.Grow(36 * len(ids))
	var u [16]byte
	var text [36]byte
	s.mu.Lock()
	for range ids {
		nano := time.Now().UnixNano()
		milli := nano / int64(time.Millisecond)
		now := milli<<12 + (nano-milli*int64(time.Millisecond))>>8
		if now <= s.last {
			now = s.last + 1
		}
		s.last = now
		milli, seq := now>>12, now&0xfff
		if s.used == 0 || s.used == len(s.rnd) {
			// crypto/rand.Read never fails (Go 1.24: it crashes the
			// program instead).
			_, _ = rand.Read(s.rnd[:])
			s.used = 0
		}
		copy(u[8:], s.rnd[s.used:s.used+8])
		s.used += 8
		u[0], u[1], u[2], u[3], u[4], u[5] = byte(milli>>40), byte(milli>>32), byte(milli>>24), byte(milli>>16), byte(milli>>8), byte(milli)
		u[6], u[7] = 0x70|byte(seq>>8)&0x0f, byte(seq)
		u[8] = u[8]&0x3f | 0x80 // the RFC 9562 variant
		hex.Encode(text[0:8], u[0:4])
		text[8] = '-'
		hex.Encode(text[9:13], u[4:6])
		text[13] = '-'
		hex.Encode(text[14:18], u[6:8])
		text[18] = '-'
		hex.Encode(text[19:23], u[8:10])
		text[23] = '-'
		hex.Encode(text[24:], u[10:])
		b.Write(text[:])
	}
	s.mu.Unlock()
	all := b.String()
	for i := range ids {
		ids[i] = all[36*i : 36*(i+1)]
	}
}

// raisePast moves the source past id, a stored id, so that every id it
// makes from now on sorts after it: the next id's milliseconds are past
// id's. It refuses (false) an id that is no UUID, or whose time lies more
// than a year past now (not made by a uuid7 clock: a version 4 id's random
// bits), which would push every later id's time that far.
func (s *uuid7Source) raisePast(id string, now time.Time) bool {
	if len(id) != 36 || id[8] != '-' {
		return false
	}
	var b [6]byte
	if _, err := hex.Decode(b[:4], []byte(id[0:8])); err != nil {
		return false
	}
	if _, err := hex.Decode(b[4:], []byte(id[9:13])); err != nil {
		return false
	}
	milli := int64(b[0])<<40 | int64(b[1])<<32 | int64(b[2])<<24 | int64(b[3])<<16 | int64(b[4])<<8 | int64(b[5])
	if milli > now.Add(365*24*time.Hour).UnixMilli() {
		return false
	}
	s.mu.Lock()
	s.last = max(s.last, milli<<12|0xfff)
	s.mu.Unlock()
	return true
}
