package httpserver

import (
	"net/http"

	"github.com/teamchat/chat"
)

// pushRoutes registers the push-notification routes.
func (s *Server) pushRoutes() {
	token := map[string]endpoint{http.MethodPost: {chat.OpRegisterIOSDeviceToken, s.iosDeviceToken}}
	s.handle("/users/me/ios_device_token", token)
	// The reference server's name, kept for its clients.
	s.handle("/users/me/apns_device_token", token)
	s.handle("/register_client_device", map[string]endpoint{
		http.MethodPost: {chat.OpRegisterClientDevice, s.registerClientDevice},
	})
	s.handle("/remove_client_device", map[string]endpoint{
		http.MethodPost: {chat.OpRemoveClientDevice, s.removeClientDevice},
	})
	s.handle("/mobile_push/register", map[string]endpoint{
		http.MethodPost: {chat.OpRegisterPushDevice, s.registerPushDevice},
	})
	s.handle("/mobile_push/e2ee/test_notification", map[string]endpoint{
		http.MethodPost: {chat.OpSendTestNotification, s.testNotification},
	})
}

// POST /users/me/ios_device_token and /users/me/apns_device_token
func (s *Server) iosDeviceToken(c *call) (fields, error) {
	token := c.p.RequiredString("token")
	appID := c.p.RequiredString("appid")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.RegisterIOSDeviceToken(c.ctx, c.actor, token, appID)
}

// POST /register_client_device
func (s *Server) registerClientDevice(c *call) (fields, error) {
	id, err := s.svc.RegisterClientDevice(c.ctx, c.actor)
	if err != nil {
		return nil, err
	}
	return fields{{"device_id", id}}, nil
}

// POST /remove_client_device
func (s *Server) removeClientDevice(c *call) (fields, error) {
	id := c.p.RequiredInt("device_id")
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.RemoveClientDevice(c.ctx, c.actor, id)
}

// POST /mobile_push/register
func (s *Server) registerPushDevice(c *call) (fields, error) {
	req := chat.PushRegistration{
		DeviceID:                  c.p.RequiredInt("device_id"),
		PushKey:                   c.p.OptString("push_key"),
		PushKeyID:                 c.p.Uint32("push_key_id"),
		TokenKind:                 c.p.OptString("token_kind"),
		TokenID:                   c.p.OptString("token_id"),
		BouncerPublicKey:          c.p.OptString("bouncer_public_key"),
		EncryptedPushRegistration: c.p.OptString("encrypted_push_registration"),
	}
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.RegisterPushDevice(c.ctx, c.actor, req)
}

// POST /mobile_push/e2ee/test_notification
func (s *Server) testNotification(c *call) (fields, error) {
	var deviceID *int64
	if id, ok := c.p.Int("device_id"); ok {
		deviceID = &id
	}
	if err := c.p.Err(); err != nil {
		return nil, err
	}
	return nil, s.svc.SendTestNotification(c.ctx, c.actor, deviceID)
}
