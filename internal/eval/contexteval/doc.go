// Package contexteval scores the prompt Recall's context gives a question
// against baselines built from the same turns: BM25 over the user's turns
// and the newest turns at the same budget, and the full history as the
// upper bound. The LoCoMo evaluation (tools/evalcontext, `make eval-context`),
// the LongMemEval one (tools/evallongmem, `make eval-longmem`) and the
// preferences one (tools/evalprefs, `make eval-prefs`) measure the same way,
// so the measures, the baselines, the posting of the turns, the questions'
// runner and the table they print live here once; each tool keeps only what
// its data set asks and how its report groups the questions.
package contexteval
