// Package when reads the time expressions of a text, in English and
// Chinese, as Recall's context and search need them: what a recalled turn's
// "yesterday", "last week" or 上周五 meant on the day it was said
// (RelativeNote), and which times a message asks about ("last Saturday",
// "four weeks ago", "in March", 上个月: MessageTimes, MessageSpans), with
// the days written as the prompt writes them (EnDate, ZhDate). It reads the
// text alone: the search lifts what happened in the spans it names, and the
// assembler renders the notes; it imports neither.
package when
