package results

import (
	"os"
	"strconv"
	"time"

	"codeberg.org/go-pdf/fpdf"
)

// PDF output is made reproducible the way reproducible-builds.org asks: the
// document's creation and modification dates are SOURCE_DATE_EPOCH (Unix
// seconds) when that is set, else the Unix epoch, and its catalogue is
// written in sorted order. gonum/plot's vgpdf draws through fpdf and does
// not expose its document, so the package defaults are set once here.
func init() {
	t := time.Unix(0, 0).UTC()
	if s, err := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64); err == nil {
		t = time.Unix(s, 0).UTC()
	}
	fpdf.SetDefaultCreationDate(t)
	fpdf.SetDefaultModificationDate(t)
	fpdf.SetDefaultCatalogSort(true)
}
