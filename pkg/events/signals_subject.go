package events

import (
	"fmt"
	"strings"
)

// Signal subjects. Catalog events carry only the tenant (an item belongs to the
// tenant's catalog, not to a user); shelf events and profile tasks carry the user
// too, so that one user's signals can be filtered, replayed and purged like turns:
//
//	recall.catalog.<tenant>
//	recall.shelf.<tenant>.<user>
//	recall.attributes.<tenant>.<user>
//	recall.tasks.profile.<tenant>.<user>
//	recall.tasks.summarize.<tenant>.<user>.<session>
const (
	CatalogSubjects = SubjectRoot + ".catalog.>"
	ShelfSubjects   = SubjectRoot + ".shelf.>"
	// AttributeSubjects are the explicit edits of users' attributes.
	AttributeSubjects   = SubjectRoot + ".attributes.>"
	TasksSubjects       = SubjectRoot + ".tasks.>"
	ProfileTaskSubjects = SubjectRoot + ".tasks.profile.>"
	// SummarizeTaskSubjects are the session summary requests.
	SummarizeTaskSubjects = SubjectRoot + ".tasks.summarize.>"
)

// Subject kinds of the signal stream, as ParseSignalSubject reports them.
const (
	KindCatalog = "catalog"
	KindShelf   = "shelf"
	// KindAttributes is an explicit edit of a user's attributes.
	KindAttributes  = "attributes"
	KindProfileTask = "tasks.profile"
	// KindSummarizeTask is a session summary request; it carries the session
	// too (SubjectIDs.SessionID).
	KindSummarizeTask = "tasks.summarize"
)

// CatalogSubject is the subject a tenant's catalog items are published on.
func CatalogSubject(tenantID string) string {
	return SubjectRoot + "." + KindCatalog + "." + EncodeToken(tenantID)
}

// ShelfSubject is the subject a user's shelf entries are published on.
func ShelfSubject(tenantID, userID string) string {
	return SubjectRoot + "." + KindShelf + "." + EncodeToken(tenantID) + "." + EncodeToken(userID)
}

// AttributeSubject is the subject a user's attribute edits are published on.
func AttributeSubject(tenantID, userID string) string {
	return SubjectRoot + "." + KindAttributes + "." + EncodeToken(tenantID) + "." + EncodeToken(userID)
}

// ProfileTaskSubject is the subject a user's profile refresh tasks are published on.
func ProfileTaskSubject(tenantID, userID string) string {
	return SubjectRoot + "." + KindProfileTask + "." + EncodeToken(tenantID) + "." + EncodeToken(userID)
}

// SummarizeTaskSubject is the subject a session's summary requests are published on.
func SummarizeTaskSubject(tenantID, userID, sessionID string) string {
	return SubjectRoot + "." + KindSummarizeTask + "." + EncodeToken(tenantID) + "." + EncodeToken(userID) + "." + EncodeToken(sessionID)
}

// ParseSignalSubject reads the kind and ids back out of a signal subject (UserID
// is empty for catalog subjects, SessionID for all but summarize tasks), so that a worker can check that a body claims
// the tenant and user of the subject it arrived on.
func ParseSignalSubject(subject string) (SubjectIDs, error) {
	rest, ok := strings.CutPrefix(subject, SubjectRoot+".")
	if !ok {
		return SubjectIDs{}, fmt.Errorf("subject %q is not under %q", subject, SubjectRoot)
	}
	var kind string
	var want int
	switch {
	case strings.HasPrefix(rest, KindCatalog+"."):
		kind, want = KindCatalog, 1
	case strings.HasPrefix(rest, KindShelf+"."):
		kind, want = KindShelf, 2
	case strings.HasPrefix(rest, KindAttributes+"."):
		kind, want = KindAttributes, 2
	case strings.HasPrefix(rest, KindProfileTask+"."):
		kind, want = KindProfileTask, 2
	case strings.HasPrefix(rest, KindSummarizeTask+"."):
		kind, want = KindSummarizeTask, 3
	default:
		return SubjectIDs{}, fmt.Errorf("subject %q is not a catalog, shelf, attributes, profile or summarize task subject", subject)
	}
	toks := strings.Split(rest[len(kind)+1:], ".")
	if len(toks) != want {
		return SubjectIDs{}, fmt.Errorf("subject %q: want %d id tokens after %s, got %d", subject, want, kind, len(toks))
	}
	ids := SubjectIDs{Kind: kind}
	var err error
	if ids.TenantID, err = DecodeToken(toks[0]); err != nil {
		return ids, err
	}
	if want >= 2 {
		if ids.UserID, err = DecodeToken(toks[1]); err != nil {
			return ids, err
		}
	}
	if want == 3 {
		if ids.SessionID, err = DecodeToken(toks[2]); err != nil {
			return ids, err
		}
	}
	return ids, nil
}

// checkSignalSubject verifies that a body's tenant (and user, for kinds that
// carry one) match its subject, which must be of the given kind.
func checkSignalSubject(subject, kind, tenantID, userID string) error {
	ids, err := ParseSignalSubject(subject)
	if err == nil && ids.Kind != kind {
		err = fmt.Errorf("subject %q is a %s subject, not %s", subject, ids.Kind, kind)
	}
	if err != nil {
		return &ValidationError{Fields: []FieldError{{Field: "(subject)", Message: err.Error()}}}
	}
	var fe fieldErrors
	if ids.TenantID != tenantID {
		fe.add("tenant_id", "body says %q but the subject is for tenant %q", ClipUTF8(tenantID, 64, "…"), ClipUTF8(ids.TenantID, 64, "…"))
	}
	if kind != KindCatalog && ids.UserID != userID {
		fe.add("user_id", "body says %q but the subject is for user %q", ClipUTF8(userID, 64, "…"), ClipUTF8(ids.UserID, 64, "…"))
	}
	return fe.err()
}

// ChangeSubjects are the change feed: every change to what Recall holds
// about a user, published by the component that made it, on
//
//	recall.changes.<tenant>.<user>
const ChangeSubjects = SubjectRoot + ".changes.>"

// KindChanges is the change feed's subject kind.
const KindChanges = "changes"

// ChangeSubject is the subject a user's changes are published on.
func ChangeSubject(tenantID, userID string) string {
	return SubjectRoot + "." + KindChanges + "." + EncodeToken(tenantID) + "." + EncodeToken(userID)
}
