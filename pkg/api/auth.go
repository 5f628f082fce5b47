package api

import (
	"net/http"

	"github.com/recallhq/recall/pkg/events"
)

// authenticate reads the tenant from X-Tenant-ID and, when keys are configured,
// checks that the bearer key belongs to that tenant (access.Keys).
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (string, bool) {
	tenant, d := s.keys.Request(r, "Authorization", s.validID, s.limits.MaxIDBytes)
	if d == nil {
		return tenant, true
	}
	if d.Challenge != "" {
		w.Header().Set("WWW-Authenticate", d.Challenge)
	}
	var fe []events.FieldError
	if d.Field != "" {
		fe = []events.FieldError{{Field: d.Field, Message: d.Problem}}
	}
	writeError(w, d.Status, d.Code, d.Message, fe)
	return "", false
}
