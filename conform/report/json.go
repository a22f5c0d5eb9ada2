package report

import (
	"encoding/json"
	"io"

	"github.com/aopkit/aopkit/conform"
)

// JSON writes the report as the stable aopconform-report/1 document (see
// docs/aopconform.md).
func JSON(w io.Writer, r *conform.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
