package events

import (
	"encoding/json"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TurnMsg encodes a turn as the NATS message a producer sends.
func TurnMsg(t *Turn) (*nats.Msg, error) {
	data, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("encode turn %s: %w", t.ID, err)
	}
	m := nats.NewMsg(TurnSubject(t.TenantID, t.UserID, t.SessionID))
	m.Data = data
	m.Header.Set(jetstream.MsgIDHeader, MsgID(t.TenantID, t.ID))
	return m, nil
}
