package main

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"
)

// TestV2When_MarshalJSON: a datetime field is v2Time's text quoted, with
// and without microseconds, whatever its zone.
func TestV2When_MarshalJSON(t *testing.T) {
	east := time.FixedZone("east", 5*3600+1800)
	for _, c := range []struct {
		at   time.Time
		want string
	}{
		{time.Date(2026, 11, 26, 17, 57, 58, 0, time.UTC), `"2026-11-26T17:57:58Z"`},
		{time.Date(2026, 11, 26, 17, 57, 58, 123456789, time.UTC), `"2026-11-26T17:57:58.123456Z"`},
		{time.Date(2026, 11, 26, 17, 57, 58, 999, time.UTC), `"2026-11-26T17:57:58Z"`},
		{time.Date(2026, 11, 26, 23, 30, 0, 1000, east), `"2026-11-26T18:00:00.000001Z"`},
	} {
		got, err := json.Marshal(struct{ At v2When }{v2When(c.at)})
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"At":` + c.want + `}`; string(got) != want {
			t.Errorf("%v: %s, want %s", c.at, got, want)
		}
		if v2Time(c.at) != c.want[1:len(c.want)-1] {
			t.Errorf("v2Time(%v) = %s", c.at, v2Time(c.at))
		}
	}
}

// TestV2Time_AsTheFormatter: the hand-written datetime is time's
// "2006-01-02T15:04:05[.000000]Z" of the UTC time, for every year time's
// formatter writes in four digits and around the edges of the others.
func TestV2Time_AsTheFormatter(t *testing.T) {
	t.Parallel()
	formatted := func(at time.Time) string {
		at = at.UTC()
		if at.Nanosecond()/1000 != 0 {
			return at.Format("2006-01-02T15:04:05.000000Z")
		}
		return at.Format("2006-01-02T15:04:05Z")
	}
	cases := []time.Time{
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 6, 1, 0, 0, 0, 1000, time.UTC),
		time.Date(2026, 3, 29, 1, 30, 0, 500, time.FixedZone("", -9*3600-1800)),
	}
	rng := rand.New(rand.NewPCG(21, 3))
	for range 2000 {
		cases = append(cases, time.Unix(rng.Int64N(253402300800)-62135596800, rng.Int64N(1e9)).In(time.FixedZone("", int(rng.Int64N(28*3600))-14*3600)))
	}
	for _, at := range cases {
		if got, want := v2Time(at), formatted(at); got != want {
			t.Fatalf("v2Time(%v) = %s, want %s", at, got, want)
		}
	}
}
