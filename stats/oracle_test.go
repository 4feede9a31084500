package stats

import (
	"encoding/json"
	"math"
	"os"
	"sync"
	"testing"
)

// oracle mirrors testdata/stats_oracle.json (a copy of
// /work/shared/oracles/stats_oracle.json; see testdata/README.md). Its
// meta.conventions block defines every key.
type oracle struct {
	MWU        []mwuCase                  `json:"mwu_cases"`
	SignedRank []signedRankCase           `json:"signed_rank_cases"`
	HL         map[string]hlCase          `json:"hodges_lehmann_R"`
	PAdjust    map[string][]float64       `json:"p_adjust_R"`
	Rliable    map[string]json.RawMessage `json:"rliable_reference"`
}

type mwuCase struct {
	ID      string    `json:"id"`
	Note    string    `json:"note"`
	X       []float64 `json:"x"`
	Y       []float64 `json:"y"`
	N1      int       `json:"n1"`
	N2      int       `json:"n2"`
	HasTies bool      `json:"has_ties"`
	U1      float64   `json:"U1"`
	RW      float64   `json:"R_W"`
	Effect  struct {
		U1            float64 `json:"U1"`
		A12           float64 `json:"A12_CLES"`
		RankBiserial  float64 `json:"rank_biserial"`
		CliffsDelta   float64 `json:"cliffs_delta"`
		HodgesLehmann float64 `json:"hodges_lehmann"`
	} `json:"effect"`
	// Expected maps alternative ("two-sided", "greater", "less") to oracle
	// key to value; non-numeric values (scipy_auto_chose) are skipped.
	Expected map[string]map[string]any `json:"expected"`
}

type signedRankCase struct {
	ID               string    `json:"id"`
	X                []float64 `json:"x"`
	Y                []float64 `json:"y"`
	D                []float64 `json:"d"`
	NZero            int       `json:"n_zero"`
	HasTiesAbsD      bool      `json:"has_ties_abs_d"`
	ExactConditional struct {
		TPlus           float64 `json:"T_plus"`
		NNonzero        int     `json:"n_nonzero"`
		Greater         float64 `json:"greater"`
		Less            float64 `json:"less"`
		TwoSidedDoubled float64 `json:"two_sided_doubled"`
	} `json:"exact_conditional"`
	Scipy map[string]map[string]any `json:"scipy"`
	R     map[string]map[string]any `json:"R"`
	RV    float64                   `json:"R_V"`
}

type hlCase struct {
	Estimate  float64    `json:"R_estimate"`
	CI        [2]float64 `json:"R_ci"`
	ConfLevel float64    `json:"R_conf_level"`
	Method    string     `json:"R_method"`
	Median    float64    `json:"median_pairwise_diff"`
}

var (
	oracleOnce sync.Once
	oracleData oracle
	oracleErr  error
)

// loadOracle reads and decodes testdata/stats_oracle.json once.
func loadOracle(t testing.TB) *oracle {
	t.Helper()
	oracleOnce.Do(func() {
		b, err := os.ReadFile("testdata/stats_oracle.json")
		if err != nil {
			oracleErr = err
			return
		}
		oracleErr = json.Unmarshal(b, &oracleData)
	})
	if oracleErr != nil {
		t.Fatalf("loading oracle: %v", oracleErr)
	}
	return &oracleData
}

// mwuCaseByID returns the MWU oracle case with the given id.
func mwuCaseByID(t testing.TB, id string) mwuCase {
	t.Helper()
	for _, c := range loadOracle(t).MWU {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no mwu case %q", id)
	return mwuCase{}
}

// num returns m[key] as a float64 and whether it is numeric.
func num(m map[string]any, key string) (float64, bool) {
	v, ok := m[key].(float64)
	return v, ok
}

// alternatives maps the oracle's alternative names to ours.
var alternatives = map[string]Alternative{"two-sided": TwoSided, "greater": Greater, "less": Less}

// tolOracle is the absolute tolerance for comparisons with the oracle,
// as its meta.conventions.tolerance asks.
const tolOracle = 1e-6

// tolExact is the absolute tolerance achieved (and asserted) for exact
// p-values, which are ratios of sums of positive counts.
const tolExact = 1e-12

func near(a, b, tol float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= tol
}
