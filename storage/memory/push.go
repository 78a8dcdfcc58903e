package memory

import (
	"slices"

	"github.com/teamchat/chat"
)

type pushTokenKey struct {
	userID      int64
	kind, token string
}

// pushState holds push tokens and client devices.
type pushState struct {
	tokens     map[pushTokenKey]chat.PushToken
	userTokens map[int64][]pushTokenKey // in insertion order
	lastDevice int64
	devices    map[int64]chat.Device
}

func newPushState() pushState {
	return pushState{
		tokens:     map[pushTokenKey]chat.PushToken{},
		userTokens: map[int64][]pushTokenKey{},
		devices:    map[int64]chat.Device{},
	}
}

func (t *tx) AddPushToken(pt chat.PushToken) error {
	if err := t.writable(); err != nil {
		return err
	}
	p := &t.s.push
	k := pushTokenKey{pt.UserID, pt.Kind, pt.Token}
	if _, ok := p.tokens[k]; ok {
		return chat.ErrExists
	}
	p.tokens[k] = pt
	old := p.userTokens[pt.UserID]
	p.userTokens[pt.UserID] = append(old[:len(old):len(old)], k)
	t.undo = append(t.undo, func() {
		delete(p.tokens, k)
		p.userTokens[pt.UserID] = old
	})
	return nil
}

func (t *tx) PushTokens(userID int64) ([]chat.PushToken, error) {
	keys := t.s.push.userTokens[userID]
	out := make([]chat.PushToken, len(keys))
	for i, k := range keys {
		out[i] = t.s.push.tokens[k]
	}
	return out, nil
}

// cloneDevice copies the key, so that no caller aliases stored state.
func cloneDevice(d chat.Device) chat.Device {
	d.PushKey = slices.Clone(d.PushKey)
	return d
}

func (t *tx) CreateDevice(d *chat.Device) error {
	if err := t.writable(); err != nil {
		return err
	}
	p := &t.s.push
	p.lastDevice++
	d.ID = p.lastDevice
	p.devices[d.ID] = cloneDevice(*d)
	id := d.ID
	t.undo = append(t.undo, func() {
		delete(p.devices, id)
		p.lastDevice--
	})
	return nil
}

func (t *tx) Device(id int64) (chat.Device, error) {
	d, ok := t.s.push.devices[id]
	if !ok {
		return chat.Device{}, chat.ErrNotFound
	}
	return cloneDevice(d), nil
}

func (t *tx) Devices(userID int64) ([]chat.Device, error) {
	out := []chat.Device{}
	for _, d := range t.s.push.devices {
		if d.UserID == userID {
			out = append(out, cloneDevice(d))
		}
	}
	slices.SortFunc(out, func(a, b chat.Device) int { return int(a.ID - b.ID) })
	return out, nil
}

func (t *tx) UpdateDevice(d chat.Device) error {
	if err := t.writable(); err != nil {
		return err
	}
	p := &t.s.push
	old, ok := p.devices[d.ID]
	if !ok {
		return chat.ErrNotFound
	}
	p.devices[d.ID] = cloneDevice(d)
	t.undo = append(t.undo, func() { p.devices[d.ID] = old })
	return nil
}

func (t *tx) DeleteDevice(id int64) error {
	if err := t.writable(); err != nil {
		return err
	}
	p := &t.s.push
	old, ok := p.devices[id]
	if !ok {
		return chat.ErrNotFound
	}
	delete(p.devices, id)
	t.undo = append(t.undo, func() { p.devices[id] = old })
	return nil
}
