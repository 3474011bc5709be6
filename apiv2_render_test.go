package main

import (
	"encoding/json"
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
