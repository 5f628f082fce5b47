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

// streamNames are Recall's streams, in the order they are declared.
func streamNames() []string {
	var out []string
	for _, sc := range streamConfigs(DefaultStreamConfig) {
		out = append(out, sc.Name)
	}
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

// ProcessPermissions are what every long-running process needs: to declare
// (create, or update to the deployment's settings) and look up each of
// Recall's streams at start, and to answer its readiness check (JetStream's
// account info).
func ProcessPermissions() Permissions {
	p := Permissions{Publish: []string{jsAPI + "INFO"}, Subscribe: []string{inbox}}
	for _, s := range streamNames() {
		p.Publish = append(p.Publish, jsAPI+"STREAM.CREATE."+s, jsAPI+"STREAM.UPDATE."+s, jsAPI+"STREAM.INFO."+s)
	}
	return p.Merge()
}

// Permissions are what a worker reading b needs besides ProcessPermissions:
// to declare its durable consumer (whose create subject carries the filter
// when there is one) and read its state (lag), pull its messages,
// acknowledge them (ack, nak, term, in progress), and dead-letter those it
// gives up on, on recall.dlq.<consumer>.>.
func (b Binding) Permissions() Permissions {
	c := b.Stream + "." + b.Durable
	return Permissions{
		Publish: []string{
			jsAPI + "CONSUMER.CREATE." + c, jsAPI + "CONSUMER.CREATE." + c + ".>",
			jsAPI + "CONSUMER.INFO." + c,
			jsAPI + "CONSUMER.MSG.NEXT." + c,
			"$JS.ACK." + c + ".>",
			events.SubjectRoot + ".dlq." + events.EncodeToken(b.Durable) + ".>",
		},
		Subscribe: []string{inbox},
	}.Merge()
}

// PublishPermissions are what publishing to subjects (JetStream publish,
// acknowledged on the inbox) needs.
func PublishPermissions(subjects ...string) Permissions {
	return Permissions{Publish: slices.Clone(subjects), Subscribe: []string{inbox}}.Merge()
}

// GatewayPermissions are what the chat gateway needs: ProcessPermissions
// and publishing the turns of the conversations it serves (it reads
// memory from PostgreSQL).
func GatewayPermissions() Permissions {
	return ProcessPermissions().Merge(PublishPermissions(events.TurnsSubjects))
}

// ProducerPermissions are what an application that publishes to Recall on
// the bus needs (a chat backend, a catalog service): publishing its subjects
// and receiving JetStream's acks, nothing of JetStream's API.
func ProducerPermissions() Permissions { return PublishPermissions(ProducerSubjects()...) }

// ProducerSubjects are the subjects an application publishes to Recall on
// directly: chat turns, its catalog, users' shelves and explicit attribute
// edits.
func ProducerSubjects() []string {
	return []string{events.TurnsSubjects, events.CatalogSubjects, events.ShelfSubjects, events.AttributeSubjects}
}

// APIPermissions are what the API needs: ProcessPermissions; publishing
// turns, attribute edits, tasks (summarize, profile refresh) and the change
// feed (a user forgotten), and every
// re-driven dead letter back to its original subject (any of the streams'
// but the dead letters'); reading the streams for a turn's status, the
// operations page's consumer lags and the dead letters; and erasing
// messages one by one, for a forgotten user, a deleted session and a
// removed or re-driven dead letter.
func APIPermissions() Permissions {
	p := PublishPermissions(append(ProducerSubjects(), events.TasksSubjects, events.ChangeSubjects)...)
	p.Publish = append(p.Publish, jsAPI+"STREAM.LIST")
	for _, s := range streamNames() {
		p.Publish = append(p.Publish, jsAPI+"STREAM.MSG.GET."+s, jsAPI+"STREAM.MSG.DELETE."+s, jsAPI+"CONSUMER.LIST."+s)
	}
	return ProcessPermissions().Merge(p)
}
