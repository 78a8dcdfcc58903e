package sqlcommon

import (
	"errors"
	"testing"

	"github.com/teamchat/chat/storage"
)

func TestTxStateCheck(t *testing.T) {
	noRows, dup, constraint, io := errors.New("no rows"), errors.New("dup"), errors.New("not null"), errors.New("io")
	e := &Errors{
		Prefix: "db",
		NoRows: noRows,
		Unique: func(err error) bool { return errors.Is(err, dup) },
		Aborts: func(err error) bool { return errors.Is(err, io) },
	}
	var s TxState
	if err := s.Check(e, "Op", nil); err != nil {
		t.Errorf("nil: %v", err)
	}
	if err := s.Check(e, "Op", noRows); err != storage.ErrNotFound {
		t.Errorf("no rows: %v", err)
	}
	if err := s.Check(e, "Op", dup); !errors.Is(err, storage.ErrExists) || !errors.Is(err, dup) ||
		err.Error() != "db: Op: storage: record already exists: dup" || s.Failed != nil {
		t.Errorf("unique violation: %v", err)
	}
	if err := s.Check(e, "Op", constraint); err == nil || err.Error() != "db: Op: not null" || s.Failed != nil {
		t.Errorf("statement failure: %v, Failed %v", err, s.Failed)
	}
	if err := s.Writable(); err != nil {
		t.Errorf("Writable after a statement failure: %v", err)
	}
	first := s.Check(e, "Op", io)
	if s.Failed != first || s.Writable() != first {
		t.Errorf("Failed %v, Writable %v; want %v", s.Failed, s.Writable(), first)
	}
	s.Check(e, "Later", io)
	if s.Failed != first {
		t.Errorf("a later failure replaced the first: %v", s.Failed)
	}
	if err := (&TxState{ReadOnly: true}).Writable(); err != storage.ErrReadOnly {
		t.Errorf("read-only Writable = %v", err)
	}
}
