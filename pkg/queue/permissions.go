package queue

import (
	"slices"

	"github.com/recallhq/recall/pkg/events"
)

// Permissions are the subjects one NATS user may publish and subscribe to,
// as a server's allow lists take them (wildcards allowed). They are built
// here, beside the streams, consumers and subjects they name, so that the
// layout a production cluster uses (docs/operations.md, deploy/nats.conf)
// and the embedded server's user follow the code.
type Permissions struct {
	Publish   []string
	Subscribe []string
}

// jsAPI is JetStream's API subject prefix (the account's own domain).
const jsAPI = "$JS.API."

// inbox is where the replies to a process's requests come: JetStream's
// answers, publish acks and the messages of a pull.
const inbox = "_INBOX.>"

// Merge is p with the subjects of others added, each once, sorted.
func (p Permissions) Merge(others ...Permissions) Permissions {
	out := Permissions{Publish: slices.Clone(p.Publish), Subscribe: slices.Clone(p.Subscribe)}
	for _, o := range others {
		out.Publish = append(out.Publish, o.Publish...)
		out.Subscribe = append(out.Subscribe, o.Subscribe...)
	}
	slices.Sort(out.Publish)
	slices.Sort(out.Subscribe)
	out.Publish, out.Subscribe = slices.Compact(out.Publish), slices.Compact(out.Subscribe)
	return out
}

// LocalPermissions are what the embedded server's one user may do: publish
// to Recall's subjects, use JetStream's API and acknowledge, and receive the
// replies (and Recall's subjects, for `nats sub`); no other subject. Every
// process on the machine (`recall run`, the tools, a chat backend) is that
// user, so it may do what any of them does.
func LocalPermissions() Permissions {
	return Permissions{
		Publish:   []string{events.SubjectRoot + ".>", jsAPI + ">", "$JS.ACK.>"},
		Subscribe: []string{events.SubjectRoot + ".>", inbox},
	}.Merge()
}
