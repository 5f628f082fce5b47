package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/changefeed"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/pause"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/webhooks"
)

var t0 = time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)

type bundle struct {
	db   *testenv.DB
	nats *testenv.NATS
	svc  *webhooks.Service
}

// fast is the worker's config for tests: endpoints on 127.0.0.1 allowed,
// an attempt timing out after 300ms, retries after 20 to 80ms, four
// attempts, and due deliveries looked for every 20ms.
func fast(c *Config) {
	c.Network.AllowPrivate = true
	c.Timeout = 300 * time.Millisecond
	c.RetryInitial, c.RetryMax = 20*time.Millisecond, 80*time.Millisecond
	c.MaxAttempts = 4
	c.PollInterval = 20 * time.Millisecond
}

// setup is a database, a JetStream with Recall's streams, and the webhooks
// worker running with fast changed by tune.
func setup(t *testing.T, tune func(*Config)) *bundle {
	t.Helper()
	b := &bundle{db: testenv.NewDB(t), nats: testenv.NewNATS(t)}
	b.svc = webhooks.NewService(b.db.Store, webhooks.Network{AllowPrivate: true})
	testenv.StartWorker(t, b.nats, b.db, Def, func(c *Config) {
		fast(c)
		if tune != nil {
			tune(c)
		}
	})
	return b
}

// change is an attribute change (or another type) of user ada of acme.
func change(typ, event string) contract.Change {
	c := contract.Change{V: contract.ChangeVersion, ID: changefeed.ID(typ, "acme", "ada", event), Type: typ, TenantID: "acme", UserID: "ada", At: t0}
	if strings.HasPrefix(typ, "attribute.") {
		c.Attribute = &contract.AttributeValue{Key: "city", Group: "about", Value: "Berlin", Op: "put", Source: "stated", Status: "current", EventID: event, ValidFrom: t0}
	}
	return c
}

func (b *bundle) publish(t *testing.T, cs ...contract.Change) {
	t.Helper()
	require.NoError(t, changefeed.NewPublisher(b.nats.JS).Publish(context.Background(), cs))
	b.nats.WaitSettled(t, queue.ChangesStream, Def.Binding.Durable)
}

// pastDuplicateWindow calls try until it reports done, for up to 15 s: the
// server forgets a message's id when its purge next runs past the stream's
// duplicate window, which a loaded machine runs late, and until then the id
// is refused as a duplicate. The caller asserts what try saw last.
func pastDuplicateWindow(try func() bool) {
	for deadline := time.Now().Add(15 * time.Second); !try() && time.Now().Before(deadline); {
		pause.For(context.Background(), 50*time.Millisecond)
	}
}

func (b *bundle) register(t *testing.T, url string, types ...string) *contract.Webhook {
	t.Helper()
	w, err := b.svc.Create(context.Background(), "acme", contract.WebhookCreate{URL: url, Types: types})
	require.NoError(t, err)
	require.NotEmpty(t, w.Secret)
	return w
}

func (b *bundle) deliveries(t *testing.T, id string) *contract.WebhookDeliveries {
	t.Helper()
	d, err := b.svc.Deliveries(context.Background(), "acme", id, "", 50)
	require.NoError(t, err)
	return d
}

// waitDelivery waits until the endpoint's delivery of change satisfies ok,
// and returns it.
func (b *bundle) waitDelivery(t *testing.T, id, change string, ok func(contract.WebhookDelivery) bool) contract.WebhookDelivery {
	t.Helper()
	var last contract.WebhookDelivery
	require.Eventually(t, func() bool {
		for _, d := range b.deliveries(t, id).Deliveries {
			if d.ChangeID == change {
				last = d
				return ok(d)
			}
		}
		return false
	}, 15*time.Second, 10*time.Millisecond, "delivery of %s to %s: last seen %+v", change, id, &last)
	return last
}

// receiver is an endpoint: it verifies each request's signature with
// verifyWebhook and answers as answer says for the nth request (from 1).
type receiver struct {
	t      *testing.T
	secret string
	answer func(n int) (status int, delay time.Duration)

	mu   sync.Mutex
	got  []got
	srv  *httptest.Server
	addr string
}

type got struct {
	id, typ  string
	change   contract.Change
	verified error
}

func newReceiver(t *testing.T, answer func(n int) (int, time.Duration)) *receiver {
	r := &receiver{t: t, answer: answer}
	r.srv = httptest.NewServer(r)
	t.Cleanup(r.srv.Close)
	r.addr = r.srv.Listener.Addr().String()
	return r
}

func ok(int) (int, time.Duration) { return http.StatusNoContent, 0 }

func (r *receiver) URL() string { return "http://" + r.addr + "/hook" }

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	var c contract.Change
	_ = json.Unmarshal(body, &c)
	r.mu.Lock()
	r.got = append(r.got, got{id: req.Header.Get("Recall-Webhook-Id"), typ: req.Header.Get("Recall-Webhook-Type"), change: c,
		verified: verifyWebhook(r.secret, req.Header, body, time.Now())})
	n := len(r.got)
	r.mu.Unlock()
	status, delay := r.answer(n)
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-req.Context().Done():
		}
	}
	w.WriteHeader(status)
}

func (r *receiver) received() []got {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]got(nil), r.got...)
}

// A change reaches the endpoints that want it, once, signed with each
// one's secret, and no endpoint that does not want it.
func TestDeliversToMatchingEndpoints(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	attrs, all, forgets := newReceiver(t, ok), newReceiver(t, ok), newReceiver(t, ok)
	wa := b.register(t, attrs.URL(), "attribute.*")
	attrs.secret = wa.Secret
	wall := b.register(t, all.URL(), "*")
	all.secret = wall.Secret
	wf := b.register(t, forgets.URL(), "user.forgotten")
	forgets.secret = wf.Secret

	c := change(contract.ChangeAttributeAsserted, "e1")
	b.publish(t, c)
	for _, w := range []*contract.Webhook{wa, wall} {
		d := b.waitDelivery(t, w.ID, c.ID, func(d contract.WebhookDelivery) bool { return d.Status == contract.WebhookDelivered })
		require.Equal(t, 1, d.Attempts)
		require.Equal(t, http.StatusNoContent, d.LastStatusCode)
		require.Empty(t, d.LastError)
	}
	for _, r := range []*receiver{attrs, all} {
		g := r.received()
		require.Len(t, g, 1)
		require.NoError(t, g[0].verified)
		require.Equal(t, c.ID, g[0].id)
		require.Equal(t, c.Type, g[0].typ)
		require.Equal(t, c.ID, g[0].change.ID)
		require.Equal(t, "Berlin", g[0].change.Attribute.Value)
	}
	// The deliveries were made before the message was acknowledged
	// (WaitSettled): the endpoint that wants none has none.
	require.Empty(t, b.deliveries(t, wf.ID).Deliveries)
	require.Empty(t, forgets.received())

	// A signature made with another endpoint's secret does not verify.
	g := attrs.received()[0]
	forged := all.received()[0]
	require.Equal(t, g.change, forged.change)
	attrs.secret = wall.Secret
	attrs.mu.Lock()
	attrs.got = nil
	attrs.mu.Unlock()
	c2 := change(contract.ChangeAttributeRemoved, "e2")
	b.publish(t, c2)
	b.waitDelivery(t, wa.ID, c2.ID, func(d contract.WebhookDelivery) bool { return d.Status == contract.WebhookDelivered })
	require.Error(t, attrs.received()[0].verified)
}

// A change published again (past the stream's duplicate window, or
// replayed) is not delivered again: one delivery per change id.
func TestChangeSeenAgainIsNotDeliveredAgain(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	sc := queue.DefaultStreamConfig
	sc.DuplicateWindow = 100 * time.Millisecond
	_, err := b.nats.JS.UpdateStream(context.Background(), queue.ChangesStreamConfig(sc))
	require.NoError(t, err)
	r := newReceiver(t, ok)
	w := b.register(t, r.URL(), "attribute.asserted")
	r.secret = w.Secret

	c := change(contract.ChangeAttributeAsserted, "e1")
	b.publish(t, c)
	b.waitDelivery(t, w.ID, c.ID, func(d contract.WebhookDelivery) bool { return d.Status == contract.WebhookDelivered })
	// Published again, until the stream holds it twice (pastDuplicateWindow).
	s, err := b.nats.JS.Stream(context.Background(), queue.ChangesStream)
	require.NoError(t, err)
	var msgs uint64
	pastDuplicateWindow(func() bool {
		b.publish(t, c)
		info, err := s.Info(context.Background())
		require.NoError(t, err)
		msgs = info.State.Msgs
		return msgs == 2
	})
	require.EqualValues(t, 2, msgs, "the stream holds the change twice")
	// A third change after it: once it is delivered, the dispatcher has
	// passed the second copy too.
	c3 := change(contract.ChangeAttributeAsserted, "e3")
	b.publish(t, c3)
	b.waitDelivery(t, w.ID, c3.ID, func(d contract.WebhookDelivery) bool { return d.Status == contract.WebhookDelivered })
	var ids []string
	for _, g := range r.received() {
		require.NoError(t, g.verified)
		ids = append(ids, g.id)
	}
	require.Equal(t, []string{c.ID, c3.ID}, ids)
	d := b.deliveries(t, w.ID)
	require.Len(t, d.Deliveries, 2)
	require.EqualValues(t, 2, d.Counts.Delivered)
}

// An endpoint that refuses connections for a while gets the change once it
// is up, after retries; another endpoint's delivery does not wait for it.
func TestDownEndpointGetsTheChangeAfterRetries(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *Config) { c.MaxAttempts = 50 })
	// An address nothing listens on, until the receiver starts there.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	down := &receiver{t: t, answer: ok, addr: addr}
	wd := b.register(t, down.URL(), "*")
	down.secret = wd.Secret
	up := newReceiver(t, ok)
	wu := b.register(t, up.URL(), "*")
	up.secret = wu.Secret

	c := change(contract.ChangeUserForgotten, "x")
	b.publish(t, c)
	b.waitDelivery(t, wu.ID, c.ID, func(d contract.WebhookDelivery) bool { return d.Status == contract.WebhookDelivered })
	d := b.waitDelivery(t, wd.ID, c.ID, func(d contract.WebhookDelivery) bool { return d.Attempts >= 3 })
	require.Equal(t, contract.WebhookPending, d.Status)
	require.Contains(t, d.LastError, "connection refused")
	require.Zero(t, d.LastStatusCode)

	l, err = net.Listen("tcp", addr)
	require.NoError(t, err)
	down.srv = &httptest.Server{Listener: l, Config: &http.Server{Handler: down}}
	down.srv.Start()
	t.Cleanup(down.srv.Close)
	d = b.waitDelivery(t, wd.ID, c.ID, func(d contract.WebhookDelivery) bool { return d.Status == contract.WebhookDelivered })
	require.Greater(t, d.Attempts, 3)
	require.Contains(t, d.LastError, "connection refused", "the last failure stays")
	g := down.received()
	require.Len(t, g, 1)
	require.NoError(t, g[0].verified)
	require.Equal(t, c.ID, g[0].id)
}

// An endpoint that answers past the attempt's timeout is retried, and the
// delivery's state says why.
func TestSlowEndpointIsRetried(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	r := newReceiver(t, func(n int) (int, time.Duration) {
		if n <= 2 {
			return http.StatusOK, 2 * time.Second
		}
		return http.StatusOK, 0
	})
	w := b.register(t, r.URL(), "attribute.*")
	r.secret = w.Secret
	c := change(contract.ChangeAttributeAsserted, "e1")
	b.publish(t, c)
	d := b.waitDelivery(t, w.ID, c.ID, func(d contract.WebhookDelivery) bool { return d.Status == contract.WebhookDelivered })
	// Two attempts timed out; the third was answered in time (on a loaded
	// machine a later one may be the first answered in time).
	require.GreaterOrEqual(t, d.Attempts, 3)
	require.Contains(t, d.LastError, "no answer within 300ms")
	require.Equal(t, http.StatusOK, d.LastStatusCode)
	g := r.received()
	require.Len(t, g, d.Attempts, "the receiver saw every attempt")
	for _, x := range g {
		require.NoError(t, x.verified)
		require.Equal(t, c.ID, x.id, "every attempt has the change's id, for the receiver to dedupe")
	}
}

// A delivery whose attempts run out is failed and dead-lettered with the
// reason; a re-drive (the API's, or the dead letter's) delivers it.
func TestGivingUpDeadLettersAndRedriveDelivers(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	var mu sync.Mutex
	status := http.StatusServiceUnavailable
	r := newReceiver(t, func(int) (int, time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		return status, 0
	})
	w := b.register(t, r.URL(), "attribute.*")
	r.secret = w.Secret
	c := change(contract.ChangeAttributeAsserted, "e1")
	b.publish(t, c)
	d := b.waitDelivery(t, w.ID, c.ID, func(d contract.WebhookDelivery) bool { return d.Status == contract.WebhookFailed })
	require.Equal(t, 4, d.Attempts)
	require.Equal(t, http.StatusServiceUnavailable, d.LastStatusCode)
	require.Contains(t, d.LastError, "503")
	require.NotNil(t, d.FinishedAt)
	require.Nil(t, d.NextAttemptAt)
	require.Len(t, r.received(), 4)

	dls := b.nats.DeadLetters(t)
	require.Len(t, dls, 1)
	dl := dls[0]
	require.Equal(t, queue.DLQSubject("webhooks", events.ChangeSubject("acme", "ada")), dl.Subject)
	require.Equal(t, "webhooks", dl.Header.Get(queue.HeaderConsumer))
	require.Equal(t, queue.ChangesStream, dl.Header.Get(queue.HeaderStream))
	require.Equal(t, w.ID, dl.Header.Get(webhooks.HeaderEndpoint))
	require.Equal(t, c.ID, dl.Header.Get(queue.HeaderOriginalMsgID))
	reason := dl.Header.Get(queue.HeaderReason)
	require.Contains(t, reason, "gave up after 4 attempts")
	require.Contains(t, reason, "503 Service Unavailable")
	require.Contains(t, reason, w.ID)
	var body contract.Change
	require.NoError(t, json.Unmarshal(dl.Data, &body))
	require.Equal(t, c.ID, body.ID)

	// Only a failed delivery is re-driven.
	_, err := b.svc.Redrive(context.Background(), "acme", w.ID, "chg-none")
	require.ErrorContains(t, err, "not_found")

	mu.Lock()
	status = http.StatusOK
	mu.Unlock()
	d2, err := b.svc.Redrive(context.Background(), "acme", w.ID, c.ID)
	require.NoError(t, err)
	require.Equal(t, contract.WebhookPending, d2.Status)
	require.Equal(t, 0, d2.Attempts)
	require.Equal(t, 1, d2.Redrives)
	d = b.waitDelivery(t, w.ID, c.ID, func(d contract.WebhookDelivery) bool { return d.Status == contract.WebhookDelivered })
	require.Equal(t, 1, d.Attempts)
	require.Equal(t, 1, d.Redrives)
	require.Len(t, r.received(), 5)
	_, err = b.svc.Redrive(context.Background(), "acme", w.ID, c.ID)
	require.ErrorContains(t, err, "not_failed")

	// The dead letter re-driven as operators do (`recall dlq redrive`),
	// once the stream has forgotten the change's id: the delivery is
	// delivered already, so nothing is sent again.
	sc := queue.DefaultStreamConfig
	sc.DuplicateWindow = 100 * time.Millisecond
	_, err = b.nats.JS.UpdateStream(context.Background(), queue.ChangesStreamConfig(sc))
	require.NoError(t, err)
	e, err := queue.GetDeadLetter(context.Background(), b.nats.JS, dl.Sequence)
	require.NoError(t, err)
	// Refused until the server forgets the id (ErrStillDuplicate), as an
	// operator is told, and tried again (pastDuplicateWindow).
	pastDuplicateWindow(func() bool {
		err = queue.Redrive(context.Background(), b.nats.JS, e)
		return !errors.Is(err, queue.ErrStillDuplicate)
	})
	require.NoError(t, err)
	b.nats.WaitSettled(t, queue.ChangesStream, Def.Binding.Durable)
	d = b.waitDelivery(t, w.ID, c.ID, func(d contract.WebhookDelivery) bool { return true })
	require.Equal(t, contract.WebhookDelivered, d.Status)
	require.Equal(t, 1, d.Redrives)
	require.Len(t, r.received(), 5)
}

// A failed delivery's dead letter re-driven with `recall dlq redrive`
// re-drives that endpoint's delivery, and only that one.
func TestDeadLetterRedriveRedrivesTheDelivery(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	sc := queue.DefaultStreamConfig
	sc.DuplicateWindow = 100 * time.Millisecond
	_, err := b.nats.JS.UpdateStream(context.Background(), queue.ChangesStreamConfig(sc))
	require.NoError(t, err)
	var mu sync.Mutex
	status := http.StatusInternalServerError
	failing := newReceiver(t, func(int) (int, time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		return status, 0
	})
	wf := b.register(t, failing.URL(), "*")
	failing.secret = wf.Secret
	fine := newReceiver(t, ok)
	wo := b.register(t, fine.URL(), "*")
	fine.secret = wo.Secret
	c := change(contract.ChangeAttributeAsserted, "e1")
	b.publish(t, c)
	b.waitDelivery(t, wf.ID, c.ID, func(d contract.WebhookDelivery) bool { return d.Status == contract.WebhookFailed })
	b.waitDelivery(t, wo.ID, c.ID, func(d contract.WebhookDelivery) bool { return d.Status == contract.WebhookDelivered })
	var dl *jetstream.RawStreamMsg
	require.Eventually(t, func() bool {
		dls := b.nats.DeadLetters(t)
		if len(dls) == 1 {
			dl = dls[0]
		}
		return dl != nil
	}, 5*time.Second, 10*time.Millisecond)

	mu.Lock()
	status = http.StatusOK
	mu.Unlock()
	e, err := queue.GetDeadLetter(context.Background(), b.nats.JS, dl.Sequence)
	require.NoError(t, err)
	require.NoError(t, queue.Redrive(context.Background(), b.nats.JS, e))
	d := b.waitDelivery(t, wf.ID, c.ID, func(d contract.WebhookDelivery) bool { return d.Status == contract.WebhookDelivered })
	require.Equal(t, 1, d.Redrives)
	require.Len(t, fine.received(), 1, "the other endpoint's delivery is not made again")
	require.Empty(t, b.nats.DeadLetters(t), "the re-driven dead letter is gone")
}

// With WEBHOOK_ALLOW_PRIVATE off, an endpoint on loopback is refused at
// registration, and a delivery to one (registered while it was allowed, or
// a name that resolves there now) is refused when connecting.
func TestPrivateAddressesRefused(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *Config) { c.Network.AllowPrivate = false; c.MaxAttempts = 2 })
	strict := webhooks.NewService(b.db.Store, webhooks.Network{})
	for _, u := range []string{"http://127.0.0.1:9/x", "http://[::1]/x", "http://localhost:8080/", "http://169.254.169.254/latest/meta-data",
		"http://[fe80::1]/", "http://0.0.0.0/", "http://10.0.0.7/", "http://[::ffff:127.0.0.1]/", "ftp://example.com/"} {
		_, err := strict.Create(context.Background(), "acme", contract.WebhookCreate{URL: u, Types: []string{"*"}})
		require.ErrorContains(t, err, "invalid webhook", u)
		ce, ok := err.(*contract.Error)
		require.True(t, ok)
		msg, ok := ce.Field("url")
		require.True(t, ok, u)
		if strings.HasPrefix(u, "http://") {
			require.Contains(t, msg, "refused", u)
		}
	}

	r := newReceiver(t, ok)
	w := b.register(t, r.URL(), "*") // b.svc allows it
	r.secret = w.Secret
	c := change(contract.ChangeAttributeAsserted, "e1")
	b.publish(t, c)
	d := b.waitDelivery(t, w.ID, c.ID, func(d contract.WebhookDelivery) bool { return d.Status == contract.WebhookFailed })
	require.Contains(t, d.LastError, "127.0.0.1 is a loopback address: refused")
	require.Empty(t, r.received(), "no request reached the receiver")
}
