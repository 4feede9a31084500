package gate

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// JUnitClassname is the classname of every JUnit test case WriteJUnit
// writes.
const JUnitClassname = "evolve.eval"

// DefaultSuite is the suite name WriteJUnit uses for an empty suite.
const DefaultSuite = "evolve eval"

type junitSuites struct {
	XMLName  xml.Name   `xml:"testsuites"`
	Name     string     `xml:"name,attr"`
	Tests    int        `xml:"tests,attr"`
	Failures int        `xml:"failures,attr"`
	Errors   int        `xml:"errors,attr"`
	Suite    junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut *junitText    `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

// junitText is an element whose text is written as CDATA, so that line
// breaks stay readable in the file.
type junitText struct {
	Text string `xml:",cdata"`
}

// WriteJUnit writes checks to w as a JUnit XML report: a <testsuites>
// root holding one <testsuite name=suite> ("evolve eval" when suite is
// empty) with a <testcase name="VERSION [VARIANT]" classname="evolve.eval">
// per check, in order (name VERSION alone when Variant is ""). A
// regression is a <failure type="regression"> whose message attribute is
// Check.Message and whose text lists every number of the check; every
// test case has a <system-out> with the message, the warnings and the
// notes. The
// counts (tests, failures; errors and skipped are 0) are on both the root
// and the suite. There are no timestamps or times, so the output is a
// function of checks.
//
// The document follows the JUnit schema of Jenkins (junit-4.xsd, as
// bundled by JUnit 5's platform tests as jenkins-junit.xsd), which GitLab's
// test reports and the GitHub JUnit report actions read. Characters XML
// cannot carry are replaced by U+FFFD; texts are CDATA sections.
//
// Errors: those of writing to w.
func WriteJUnit(w io.Writer, suite string, checks []Check) error {
	if suite == "" {
		suite = DefaultSuite
	}
	s := junitSuite{Name: suite, Tests: len(checks), Cases: make([]junitCase, len(checks))}
	for i, c := range checks {
		tc := junitCase{Name: c.Name(), Classname: JUnitClassname}
		out := []string{c.Message}
		for _, w := range c.Warnings {
			out = append(out, "warning: "+w)
		}
		out = append(out, c.Notes...)
		tc.SystemOut = &junitText{xmlText(strings.Join(out, "\n"))}
		if c.Failed {
			s.Failures++
			typ := "regression"
			if c.Hypothesis == HypothesisNonInferiority {
				typ = "non-inferiority-not-shown"
			}
			tc.Failure = &junitFailure{Message: c.Message, Type: typ, Text: xmlText(details(c))}
		}
		s.Cases[i] = tc
	}
	doc := junitSuites{Name: suite, Tests: s.Tests, Failures: s.Failures, Suite: s}
	b, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("gate: encoding JUnit XML: %w", err)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// xmlText replaces what XML 1.0 text cannot hold (control characters
// other than tab and line breaks, U+FFFE, U+FFFF, invalid UTF-8) by
// U+FFFD: encoding/xml does so for attributes and escaped text, but not
// for CDATA.
func xmlText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r <= 0xD7FF,
			r >= 0xE000 && r <= 0xFFFD,
			r >= 0x10000 && r <= 0x10FFFF:
			return r
		}
		return '\uFFFD'
	}, s)
}

// details lists the numbers of c, one "name: value" per line.
func details(c Check) string {
	var b strings.Builder
	fmt.Fprintf(&b, "version: %s\nvariant: %s\n", c.Version, c.Variant)
	fmt.Fprintf(&b, "hypothesis: %s (%s)\n", c.Hypothesis, hypothesisNote(c.Hypothesis))
	fmt.Fprintf(&b, "test: %s, one-sided, H1: %s\n", c.Test, H1(c))
	if c.FailureMethod != "" {
		fmt.Fprintf(&b, "method: %s (failed share of episodes; mean is the share)\n", c.FailureMethod)
	}
	fmt.Fprintf(&b, "family: %s\n", c.Family)
	fmt.Fprintf(&b, "n: %d candidate, %d baseline, %d paired, %d unmatched\n", c.N, c.NBaseline, c.NPaired, c.NUnmatched)
	fmt.Fprintf(&b, "mean: %s candidate, %s baseline, diff %s\n", num(c.Mean), num(c.BaselineMean), num(c.MeanDiff))
	hl := "HL shift"
	if c.Paired {
		hl = "HL paired difference"
	}
	fmt.Fprintf(&b, "%s: %s [%g%% CI %s, %s]\n", hl, num(c.HLShift), HLConfLevel*100, num(c.HLLow), num(c.HLHigh))
	fmt.Fprintf(&b, "statistic: %s = %s\n", statName(c.Test), num(c.Statistic))
	fmt.Fprintf(&b, "p: %s, %s-adjusted %s, alpha %v\n", pfmt(c.P), c.Correction, pfmt(c.PAdj), c.Alpha)
	fmt.Fprintf(&b, "A12: %.3f\n", c.A12)
	fmt.Fprintf(&b, "power: %s at a true loss of %s\n", powerFmt(c.Power), num(c.PowerLoss))
	return b.String()
}

// hypothesisNote says what passing and failing mean under hypothesis h.
func hypothesisNote(h string) string {
	if h == HypothesisNonInferiority {
		return "H0: worse by at least the margin; passing shows non-inferiority at alpha"
	}
	return "H0: not worse beyond the margin; fails on evidence of a loss; passing is not evidence of non-inferiority"
}
