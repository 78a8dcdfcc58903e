package memory

import (
	"slices"

	"github.com/teamchat/chat/storage"
)

type pushTokenKey struct {
	userID      int64
	kind, token string
}

// pushState holds push tokens and client devices.
type pushState struct {
	tokens     map[pushTokenKey]storage.PushToken
	userTokens map[int64][]pushTokenKey // in insertion order
	lastDevice int64
	devices    map[int64]storage.Device
}

func newPushState() pushState {
	return pushState{
		tokens:     map[pushTokenKey]storage.PushToken{},
		userTokens: map[int64][]pushTokenKey{},
		devices:    map[int64]storage.Device{},
	}
}

func (t *tx) AddPushToken(pt storage.PushToken) error {
	if err := t.writable(); err != nil {
		return err
	}
	p := &t.s.push
	k := pushTokenKey{pt.UserID, pt.Kind, pt.Token}
	if _, ok := p.tokens[k]; ok {
		return storage.ErrExists
	}
	setKey(t, p.tokens, k, pt)
	old := p.userTokens[pt.UserID]
	setKey(t, p.userTokens, pt.UserID, append(old[:len(old):len(old)], k))
	return nil
}

func (t *tx) PushTokens(userID int64) ([]storage.PushToken, error) {
	keys := t.s.push.userTokens[userID]
	out := make([]storage.PushToken, len(keys))
	for i, k := range keys {
		out[i] = t.s.push.tokens[k]
	}
	return out, nil
}

// cloneDevice copies the key, so that no caller aliases stored state.
func cloneDevice(d storage.Device) storage.Device {
	d.PushKey = slices.Clone(d.PushKey)
	return d
}

func (t *tx) CreateDevice(d *storage.Device) error {
	if err := t.writable(); err != nil {
		return err
	}
	p := &t.s.push
	d.ID = nextID(t, &p.lastDevice)
	setKey(t, p.devices, d.ID, cloneDevice(*d))
	return nil
}

func (t *tx) Device(id int64) (storage.Device, error) {
	d, ok := t.s.push.devices[id]
	if !ok {
		return storage.Device{}, storage.ErrNotFound
	}
	return cloneDevice(d), nil
}

func (t *tx) Devices(userID int64) ([]storage.Device, error) {
	out := []storage.Device{}
	for _, d := range t.s.push.devices {
		if d.UserID == userID {
			out = append(out, cloneDevice(d))
		}
	}
	slices.SortFunc(out, func(a, b storage.Device) int { return int(a.ID - b.ID) })
	return out, nil
}

func (t *tx) UpdateDevice(d storage.Device) error {
	if err := t.writable(); err != nil {
		return err
	}
	p := &t.s.push
	if _, ok := p.devices[d.ID]; !ok {
		return storage.ErrNotFound
	}
	setKey(t, p.devices, d.ID, cloneDevice(d))
	return nil
}

func (t *tx) DeleteDevice(id int64) error {
	if err := t.writable(); err != nil {
		return err
	}
	p := &t.s.push
	if _, ok := p.devices[id]; !ok {
		return storage.ErrNotFound
	}
	deleteKey(t, p.devices, id)
	return nil
}
