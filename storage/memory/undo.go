package memory

import (
	"slices"

	"github.com/teamchat/chat/storage"
)

// The tables of the store are maps; every write to them goes through these
// operations, which log how to undo it, so that a failed Update restores
// the store by replaying the log backwards.

// setKey sets m[k] to v and logs the undo that restores the key as it was.
func setKey[K comparable, V any](t *tx, m map[K]V, k K, v V) {
	old, had := m[k]
	m[k] = v
	t.undo = append(t.undo, func() {
		if had {
			m[k] = old
		} else {
			delete(m, k)
		}
	})
}

// deleteKey deletes m[k] and logs the undo that puts it back.
func deleteKey[K comparable, V any](t *tx, m map[K]V, k K) {
	old, had := m[k]
	if !had {
		return
	}
	delete(m, k)
	t.undo = append(t.undo, func() { m[k] = old })
}

// nextID advances the ID sequence seq and returns the new ID; the undo
// gives the ID back.
func nextID(t *tx, seq *int64) int64 {
	*seq++
	t.undo = append(t.undo, func() { *seq-- })
	return *seq
}

// onUndo logs an undo step that none of the operations above covers.
func (t *tx) onUndo(fn func()) { t.undo = append(t.undo, fn) }

// lookup returns m[k], or storage.ErrNotFound.
func lookup[K comparable, V any](m map[K]V, k K) (V, error) {
	v, ok := m[k]
	if !ok {
		return v, storage.ErrNotFound
	}
	return v, nil
}

// filtered returns the values of m that keep accepts, sorted by order;
// never nil.
func filtered[K comparable, V any](m map[K]V, keep func(*V) bool, order func(a, b *V) int) []V {
	out := []V{}
	for _, v := range m {
		if keep(&v) {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b V) int { return order(&a, &b) })
	return out
}
