package stated

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

const zhFamily = `儿子|女儿|孩子|小孩|宝宝|老婆|老公|妻子|丈夫|爱人|对象|男朋友|女朋友|妈妈|母亲|爸爸|父亲|爸妈|父母|哥哥|姐姐|弟弟|妹妹|爷爷|奶奶|外公|外婆|家人|猫|狗|狗狗|猫咪|宠物|鹦鹉|兔子|仓鼠`

var (
	// zhSubject opens a sentence about the user or theirs, after a
	// discourse word or two.
	zhSubject = regexp.MustCompile(`^(?:(?:其实|说实话|老实说|另外|对了|而且|但是|不过|因为|所以|本人|顺便说一下|顺便说|还有|然后|嗯|哦)[，,]?)*(我们家|我家(?:的)?(?:` + zhFamily + `)?|我们|我(?:的)?(?:` + zhFamily + `)|我)`)
	zhAdverbs = regexp.MustCompile(`^(?:很|非常|特别|超级|超|真的|最|比较|挺|一直|从来|向来|都|也|还|就|实在|十分|极其|相当|太|更|平时|通常|一般|总是|经常|每天|每周|基本上|基本|尽量|绝对|完全|根本|有点|有些|现在|目前|已经|本来|其实|确实|老是|常常|天天|从小|向来|早上|晚上|中午|周末|下班后|睡前|饭后|最近|刚刚|刚|上个月|上周|去年|今年|前几天|前阵子|终于)+`)
	zhNeg     = regexp.MustCompile(`^(?:不太|不怎么|一点都不|一点也不|从来不|从不|绝不|不|没有|没)`)
	zhBoost   = regexp.MustCompile(`非常|特别|超级|超|真的|极其|十分|绝对|完全|最|严重|根本`)
	zhHedge   = regexp.MustCompile(`有点|有些|稍微|比较|还算`)
	zhHabit   = regexp.MustCompile(`每天|每周|每个?月|经常|平时|通常|一般|总是|常常|天天|习惯|老是|周末`)
	zhToward  = regexp.MustCompile(`^对(.{1,16}?)(?:很|非常|特别|比较|挺|超级?|有点|一点)?(不感兴趣|没有?兴趣|不太感兴趣|感兴趣|有兴趣|着迷|上瘾|过敏|反感|讨厌|不耐受|敏感)`)
	zhObjEnd  = regexp.MustCompile(`[，。！？,.!?；;、]|因为|所以|但是|而且|不过|可是|然后|的话`)
	zhPassing = regexp.MustCompile(`^(?:想|要)(?:问|知道|了解|请教|找|看看|让你|请你|麻烦|确认|听|试试|聊|说)`)
)

type zhVerb struct {
	word  string
	kind  string
	boost float64
}

// zhVerbs are tried in order: longer words before the words they hold.
var zhVerbs = []zhVerb{
	{"不喜欢", KindDislike, 0}, {"喜欢", KindLike, 0}, {"热爱", KindLike, 0.1}, {"偏爱", KindLike, 0.05}, {"偏好", KindLike, 0},
	{"钟爱", KindLike, 0.1}, {"迷上", KindLike, 0}, {"痴迷", KindLike, 0.1}, {"享受", KindLike, 0}, {"爱", KindLike, 0.05},
	{"讨厌", KindDislike, 0.1}, {"反感", KindDislike, 0.05}, {"厌恶", KindDislike, 0.15}, {"受不了", KindDislike, 0.15},
	{"接受不了", KindDislike, 0.1}, {"忍受不了", KindDislike, 0.15}, {"嫌弃", KindDislike, 0}, {"烦", KindDislike, 0}, {"恨", KindDislike, 0.1},
	{"害怕", KindFear, 0.05}, {"恐惧", KindFear, 0.1}, {"恐高", KindFear, 0.05}, {"畏惧", KindFear, 0.05}, {"晕车", KindHealth, 0},
	{"晕船", KindHealth, 0}, {"晕机", KindHealth, 0}, {"怕", KindFear, 0},
	{"吃素", KindHealth, 0}, {"乳糖不耐", KindHealth, 0}, {"不能吃", KindHealth, 0.05}, {"不能喝", KindHealth, 0.05},
	{"不能碰", KindHealth, 0.05}, {"忌口", KindHealth, 0}, {"戒了", KindHealth, 0}, {"在戒", KindHealth, 0}, {"过敏", KindHealth, 0.05},
	{"避免", KindAvoid, 0}, {"远离", KindAvoid, 0}, {"不碰", KindAvoid, 0.05},
	{"住在", KindLocation, 0}, {"搬到", KindLocation, 0}, {"搬家到", KindLocation, 0}, {"搬去", KindLocation, 0}, {"定居", KindLocation, 0},
	{"生活在", KindLocation, 0},
	{"打算", KindGoal, 0}, {"计划", KindGoal, 0}, {"准备", KindGoal, 0}, {"正在学", KindGoal, 0}, {"在学", KindGoal, 0},
	{"想学", KindGoal, 0}, {"目标是", KindGoal, 0}, {"梦想是", KindGoal, 0}, {"在减肥", KindGoal, 0}, {"在备考", KindGoal, 0},
	{"习惯", KindHabit, 0},
	{"养了", KindFamily, 0}, {"养", KindFamily, 0}, {"有", KindFamily, 0},
	{"在", KindIdentity, 0}, {"是", KindIdentity, 0}, {"做", KindIdentity, 0},
}

// zhActivities are what people do: with an adverb of habit, a habit;
// negated, what the user stays away from.
var zhActivities = []string{"吃", "喝", "坐", "开车", "开", "用", "看", "玩", "去", "穿", "住", "听", "跑步", "游泳", "健身", "做饭", "读", "打", "抽烟", "喝酒", "熬夜", "早起", "逛", "买", "骑", "坐飞机", "旅行", "旅游"}

// selfZH reads one Chinese sentence: its subject and the words before its
// verb, then the first reading that fits: a stance toward something (对…
// 感兴趣), a verb of the table, an activity.
func selfZH(clause string) (Said, bool) {
	c, ok := openZH(clause)
	if !ok {
		return Said{}, false
	}
	if t := zhToward.FindStringSubmatch(c.rest); t != nil && !c.negated {
		return c.toward(objectZH(t[1]), t[2])
	}
	for _, v := range zhVerbs {
		if strings.HasPrefix(c.rest, v.word) {
			c.boost += v.boost
			return c.verb(v, c.rest[len(v.word):])
		}
	}
	return c.activity()
}

// zhClause is a Chinese sentence about the user or theirs, read up to its
// verb.
type zhClause struct {
	// whose is the family member or pet the sentence is about ("" for the
	// user): 我女儿 → 女儿.
	whose string
	// rest is the sentence from the verb on.
	rest string
	// negated: a negation (不, 没有, 从不) stands before the verb.
	negated bool
	// habit: an adverb of habit (每天, 经常) stands before the verb.
	habit bool
	// boost is how much the adverbs raise or lower the statement's
	// strength (非常, 有点).
	boost float64
}

// openZH reads a sentence's subject, adverbs and negation; a sentence about
// the past that no longer holds (以前, 曾经) is none.
func openZH(clause string) (zhClause, bool) {
	c := strings.TrimSpace(clause)
	m := zhSubject.FindStringSubmatchIndex(c)
	if m == nil {
		return zhClause{}, false
	}
	subject := c[m[2]:m[3]]
	whose := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(subject, "我们家"), "我家"), "我")
	whose = strings.TrimPrefix(strings.TrimPrefix(whose, "的"), "们")
	rest := c[m[1]:]
	pre := zhAdverbs.FindString(rest)
	rest = rest[len(pre):]
	neg := zhNeg.FindString(rest)
	rest = rest[len(neg):]
	if more := zhAdverbs.FindString(rest); more != "" {
		pre += more
		rest = rest[len(more):]
	}
	if strings.HasPrefix(rest, "以前") || strings.HasPrefix(rest, "曾经") || strings.HasPrefix(pre, "曾经") {
		return zhClause{}, false
	}
	boost := 0.05 * float64(len(zhBoost.FindAllString(pre+neg, -1)))
	if zhHedge.MatchString(pre) {
		boost -= 0.1
	}
	return zhClause{whose: whose, rest: rest, negated: neg != "", habit: zhHabit.MatchString(pre), boost: boost}, true
}

// said is the sentence's statement of kind about matter; one about a family
// member or pet is theirs.
func (c zhClause) said(kind, matter string, negative bool) (Said, bool) {
	if matter == "" {
		return Said{}, false
	}
	if c.whose != "" && (kind == KindIdentity || kind == KindLocation || kind == KindGoal) {
		kind = KindFamily
	}
	if c.whose != "" {
		matter = c.whose + "：" + matter
	}
	negative = negative || kind == KindDislike || kind == KindAvoid || kind == KindFear
	return Said{Kind: kind, Matter: matter, Negative: negative, Strength: strength(kind, c.boost)}, true
}

// toward reads 对 obj + a stance: 对猫过敏, 对爵士乐感兴趣, 对烟味反感.
func (c zhClause) toward(obj, stance string) (Said, bool) {
	switch stance {
	case "感兴趣", "有兴趣", "着迷", "上瘾":
		return c.said(KindLike, obj, false)
	case "过敏", "不耐受", "敏感":
		return c.said(KindHealth, obj, true)
	default:
		return c.said(KindDislike, obj, true)
	}
}

// verb reads the sentence by v, a verb of zhVerbs, and obj, what follows it.
func (c zhClause) verb(v zhVerb, obj string) (Said, bool) {
	switch v.kind {
	case KindLike:
		kind := v.kind
		if c.negated {
			kind = KindDislike
		}
		if strings.HasPrefix(obj, "的") { // 我最喜欢的菜是…
			return c.said(KindLike, "最喜欢"+objectZH(strings.TrimPrefix(obj, "的")), false)
		}
		return c.said(kind, objectZH(obj), c.negated)
	case KindDislike, KindFear:
		if c.negated {
			return Said{}, false
		}
		return c.said(v.kind, objectZH(obj), true)
	case KindHealth:
		if c.negated && v.word != "过敏" {
			return Said{}, false
		}
		matter := objectZH(obj)
		if matter == "" {
			matter = v.word
		}
		return c.said(KindHealth, matter, true)
	case KindAvoid:
		return c.said(KindAvoid, objectZH(obj), true)
	case KindLocation:
		if c.negated {
			return Said{}, false
		}
		return c.said(KindLocation, "location", false)
	case KindGoal:
		if c.negated || zhPassing.MatchString(v.word+obj) {
			return Said{}, false
		}
		return c.said(KindGoal, objectZH(obj), false)
	case KindHabit:
		return c.said(KindHabit, objectZH(obj), c.negated)
	case KindFamily:
		if c.negated {
			return Said{}, false
		}
		return c.has(obj)
	case KindIdentity:
		if c.negated {
			return Said{}, false
		}
		switch v.word {
		case "在":
			return c.worksAt(obj)
		case "做":
			if strings.Contains(obj, "工作") || strings.HasSuffix(zhObjEnd.Split(obj, 2)[0], "的") {
				return c.said(KindIdentity, "occupation", false)
			}
			return Said{}, false
		}
		return c.is(obj)
	}
	return Said{}, false
}

// has reads 有/养 + a family member or pet: 我有两个孩子, 我养了一只猫.
func (c zhClause) has(obj string) (Said, bool) {
	o := strings.TrimLeft(obj, "一二两三四五六七八九十个只条位")
	for _, f := range strings.Split(zhFamily, "|") {
		if strings.HasPrefix(o, f) {
			return c.said(KindFamily, "有"+f, false)
		}
	}
	return Said{}, false
}

// worksAt reads 在 + a place + 工作 or 上学: 我在银行工作, 我在北京上学.
func (c zhClause) worksAt(obj string) (Said, bool) {
	if i := strings.Index(obj, "工作"); i > 0 && utf8.RuneCountInString(obj[:i]) <= 10 {
		return c.said(KindIdentity, "occupation", false)
	}
	if i := strings.Index(obj, "上学"); i > 0 && utf8.RuneCountInString(obj[:i]) <= 10 {
		return c.said(KindIdentity, "school", false)
	}
	return Said{}, false
}

// is reads 是 + a noun, not a judgement: 我是一名护士, 我是上海人, 我是素食者;
// a fan (…迷, …控) is a liking.
func (c zhClause) is(obj string) (Said, bool) {
	o := strings.TrimLeft(obj, "一个名位")
	head := zhObjEnd.Split(o, 2)[0]
	if head == "" || utf8.RuneCountInString(head) > 10 {
		return Said{}, false
	}
	if strings.HasSuffix(head, "人") && utf8.RuneCountInString(head) <= 4 {
		return c.said(KindIdentity, "origin", false)
	}
	if strings.ContainsAny(head, "素") {
		return c.said(KindHealth, "diet "+head, false)
	}
	if len(o) == len(obj) && !strings.HasSuffix(head, "者") && !strings.HasSuffix(head, "生") && !strings.HasSuffix(head, "师") &&
		!strings.HasSuffix(head, "员") && !strings.HasSuffix(head, "家") && !strings.HasSuffix(head, "迷") && !strings.HasSuffix(head, "控") {
		return Said{}, false // "我是说", "我是不是": no noun
	}
	if strings.HasSuffix(head, "迷") || strings.HasSuffix(head, "控") {
		return c.said(KindLike, head, false)
	}
	return c.said(KindIdentity, "是"+head, false)
}

// activity reads an activity (zhActivities): a habit with an adverb of
// habit; negated, avoided.
func (c zhClause) activity() (Said, bool) {
	for _, a := range zhActivities {
		if !strings.HasPrefix(c.rest, a) {
			continue
		}
		obj := objectZH(c.rest[len(a):])
		switch {
		case c.negated:
			return c.said(KindAvoid, a+obj, true)
		case c.habit:
			return c.said(KindHabit, a+obj, false)
		}
		return Said{}, false
	}
	return Said{}, false
}

// objectZH is the matter of a Chinese object: its first words, up to a
// mark or a conjunction, at most eight characters.
func objectZH(s string) string {
	s = strings.TrimLeft(s, "了过着的得地 ")
	s = zhObjEnd.Split(s, 2)[0]
	s = strings.TrimRight(s, "了的吧啊呀呢哦")
	r := []rune(strings.TrimSpace(s))
	if len(r) > 8 {
		r = r[:8]
	}
	return string(r)
}
