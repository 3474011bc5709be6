package main

import (
	"fmt"
	"slices"
	"strings"
)

// The DAG's graph on its page, as Airflow's Graph view shows it: tasks as
// boxes coloured by the chosen run's states, edges upstream to
// downstream, task groups as boxes around their tasks. airlite lays it
// out itself and writes SVG into the page: no script, no front-end build.
// Tasks sit in columns by upstream depth (the longest chain of upstream
// tasks before them), left to right as Airflow's default orientation
// (2.10.3 models/dag.py:443 orientation="LR").

const (
	graphNodeW   = 168
	graphNodeH   = 30
	graphGapX    = 56
	graphGapY    = 14
	graphPad     = 28
	graphGroupIn = 8  // a group box's margin around its tasks
	graphLabel   = 22 // characters of a task's label shown; the rest is in its tooltip
)

// graphStateFill is each task state's fill, the colours of Airflow's
// State.state_color (2.10.3 utils/state.py:138-150), as ui.css gives them.
var graphStateFill = map[string]string{
	"success": "green", "running": "lime", "failed": "red", "queued": "gray",
	"up_for_retry": "gold", "up_for_reschedule": "turquoise", "upstream_failed": "orange",
	"skipped": "hotpink", "scheduled": "tan", "removed": "lightgrey", "restarting": "violet",
	"deferred": "mediumpurple", "shutdown": "blue", "none": "#fff",
}

// graphDarkFills take white text.
var graphDarkFills = map[string]bool{"green": true, "red": true, "blue": true, "gray": true, "mediumpurple": true}

// graphView is the SVG's content, in the SVG's user units.
type graphView struct {
	Width, Height int
	Nodes         []graphNode
	Edges         []graphEdge
	Groups        []graphGroup
}

type graphNode struct {
	TaskID    string // the full id, with its group prefix
	Label     string // the id without its group prefix, cut to fit
	State     string
	Fill, Ink string
	X, Y      int
	TextX     int
	TextY     int
	Href      string // the task's log on the page; "" when it has no output
}

type graphEdge struct {
	From, To string
	D        string // the path
}

type graphGroup struct {
	GroupID    string
	Tooltip    string // the group's tooltip, "" when none
	X, Y, W, H int
	LabelY     int
}

// buildGraph lays out def's tasks. states holds the chosen run's task
// states by task id (none for a DAG with no run); logged the tasks whose
// output the page shows.
func buildGraph(def *DAG, states map[string]string, logged map[string]bool) *graphView {
	if len(def.Tasks) == 0 {
		return nil
	}
	byID := map[string]*Task{}
	order := map[string]int{}
	for i, t := range def.Tasks {
		byID[t.TaskID], order[t.TaskID] = t, i
	}
	depth := map[string]int{}
	var depthOf func(id string, seen int) int
	depthOf = func(id string, seen int) int {
		if d, ok := depth[id]; ok {
			return d
		}
		d := 0
		if t := byID[id]; t != nil && seen <= len(def.Tasks) { // bound: a cycle is refused at load
			for _, up := range t.Upstream {
				if _, ok := byID[up]; ok {
					d = max(d, depthOf(up, seen+1)+1)
				}
			}
		}
		depth[id] = d
		return d
	}
	var columns [][]*Task
	for _, t := range def.Tasks {
		d := depthOf(t.TaskID, 0)
		for len(columns) <= d {
			columns = append(columns, nil)
		}
		columns[d] = append(columns[d], t)
	}
	g := &graphView{}
	pos := map[string]*graphNode{}
	rows := 0
	for c, col := range columns {
		// Tasks of a group together, so that its box holds few others.
		slices.SortStableFunc(col, func(a, b *Task) int {
			return strings.Compare(def.TaskGroupOf(a.TaskID), def.TaskGroupOf(b.TaskID))
		})
		rows = max(rows, len(col))
		for r, t := range col {
			state := "none"
			if s := states[t.TaskID]; s != "" {
				state = s
			}
			fill := graphStateFill[state]
			if fill == "" {
				fill = "#fff"
			}
			ink := "#000"
			if graphDarkFills[fill] {
				ink = "#fff"
			}
			label := t.Label
			if label == "" {
				label = strings.TrimPrefix(t.TaskID[len(def.TaskGroupOf(t.TaskID)):], ".")
			}
			if r := []rune(label); len(r) > graphLabel {
				label = string(r[:graphLabel-1]) + "…"
			}
			n := graphNode{TaskID: t.TaskID, Label: label, State: state, Fill: fill, Ink: ink,
				X: graphPad + c*(graphNodeW+graphGapX), Y: graphPad + r*(graphNodeH+graphGapY)}
			n.TextX, n.TextY = n.X+8, n.Y+graphNodeH/2+5
			if logged[t.TaskID] {
				n.Href = "#log-" + t.TaskID
			}
			g.Nodes = append(g.Nodes, n)
		}
	}
	for i := range g.Nodes {
		pos[g.Nodes[i].TaskID] = &g.Nodes[i]
	}
	for _, t := range def.Tasks {
		from := pos[t.TaskID]
		for _, down := range t.Downstream {
			to := pos[down]
			if to == nil {
				continue
			}
			x1, y1 := from.X+graphNodeW, from.Y+graphNodeH/2
			x2, y2 := to.X, to.Y+graphNodeH/2
			mid := (x1 + x2) / 2
			g.Edges = append(g.Edges, graphEdge{From: t.TaskID, To: down,
				D: fmt.Sprintf("M%d %dC%d %d %d %d %d %d", x1, y1, mid, y1, mid, y2, x2, y2)})
		}
	}
	g.Groups = graphGroups(def, g.Nodes)
	g.Width = graphPad*2 + len(columns)*graphNodeW + (len(columns)-1)*graphGapX
	g.Height = graphPad*2 + rows*graphNodeH + (rows-1)*graphGapY
	return g
}

// graphGroups are the boxes of every task group (and of every group that
// holds one), each around its tasks, outer groups first so that inner
// ones are drawn over them. The groups are the DAG's (TaskGroupOf,
// ParentGroupOf): a group's box shows its label and its tooltip.
func graphGroups(def *DAG, nodes []graphNode) []graphGroup {
	type box struct{ x0, y0, x1, y1, level int }
	boxes := map[string]*box{}
	for _, n := range nodes {
		for gid := def.TaskGroupOf(n.TaskID); gid != ""; gid = def.ParentGroupOf(gid) {
			b := boxes[gid]
			if b == nil {
				b = &box{x0: n.X, y0: n.Y, x1: n.X + graphNodeW, y1: n.Y + graphNodeH}
				boxes[gid] = b
			}
			b.x0, b.y0 = min(b.x0, n.X), min(b.y0, n.Y)
			b.x1, b.y1 = max(b.x1, n.X+graphNodeW), max(b.y1, n.Y+graphNodeH)
		}
	}
	for id, b := range boxes {
		for p := def.ParentGroupOf(id); p != ""; p = def.ParentGroupOf(p) {
			b.level++
		}
	}
	ids := make([]string, 0, len(boxes))
	for id := range boxes {
		ids = append(ids, id)
	}
	// Outer groups first.
	slices.SortFunc(ids, func(a, b string) int {
		if c := boxes[a].level - boxes[b].level; c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	var out []graphGroup
	for _, id := range ids {
		b := boxes[id]
		// Inner groups sit inside outer ones: a smaller margin per level.
		in := max(graphGroupIn-2*b.level, 2)
		g := graphGroup{GroupID: id, X: b.x0 - in, Y: b.y0 - in - 10,
			W: b.x1 - b.x0 + 2*in, H: b.y1 - b.y0 + 2*in + 10, LabelY: b.y0 - in}
		if tg := def.TaskGroupByID(id); tg != nil {
			g.Tooltip = tg.Tooltip
		}
		out = append(out, g)
	}
	return out
}
