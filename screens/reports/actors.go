package reports

import "sort"

// actorKey is an actor as found in the data: bookings without one have none.
type actorKey struct {
	name  string
	valid bool
}

func keyOf(s *string) actorKey {
	if s == nil {
		return actorKey{}
	}
	return actorKey{name: *s, valid: true}
}

func (a actorKey) ptr() *string {
	if !a.valid {
		return nil
	}
	n := a.name
	return &n
}

// reserved are the row keys an actor's column cannot have.
var reserved = map[string]bool{KeyID: true, KeyPeriod: true, KeyPeriodFrom: true, KeyPeriodTo: true, KeyTotal: true, KeyNoActor: true}

// key is the actor's column key: its name, unless that is one of the other
// keys of a row (an actor named Total), which gets a prefix.
func (a actorKey) key() string {
	switch {
	case !a.valid:
		return KeyNoActor
	case reserved[a.name]:
		return "Actor " + a.name
	}
	return a.name
}

// sortedActors orders actors by name, the one without a name last.
func sortedActors(m map[actorKey]string) []actorKey {
	out := make([]actorKey, 0, len(m))
	for a := range m {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].valid != out[j].valid {
			return out[i].valid
		}
		return out[i].name < out[j].name
	})
	return out
}
