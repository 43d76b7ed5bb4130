package otelrun_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/otelrun"
	"github.com/faultline/faultline/reference/copperfin"
)

// Write the trace of one run to a file that Jaeger's UI can open.
func ExampleWriteFile() {
	sched, _ := model.SingleFault("timeout_after_commit", copperfin.ConfigOfProfile(copperfin.ProfileBaseline))
	res, err := copperfin.Definition().Run(sched, model.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "traces")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, otelrun.FileName(res))
	if err := otelrun.WriteFile(path, res); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(filepath.Base(path))
	// Output: run-c076e5b2f72660b0.otlp.json
}

// Hand the spans of a run to an exporter one already has (here the SDK's
// in-memory one; an OTLP exporter works the same way).
func ExampleExport() {
	sched, _ := model.SingleFault("timeout_after_commit", copperfin.ConfigOfProfile(copperfin.ProfileBaseline))
	res, _ := copperfin.Definition().Run(sched, model.Options{})
	exp := tracetest.NewInMemoryExporter()
	if err := otelrun.Export(context.Background(), res, exp); err != nil {
		fmt.Println(err)
		return
	}
	spans := exp.GetSpans()
	root := spans[len(spans)-1]
	fmt.Println(len(spans), "spans;", root.Name, root.Status.Description)
	// Output: 23 spans; task ref-db32399f effect_at_most_once violated at seq 19 (tool.commit); recorded_agrees_with_ledger violated at seq 22 (claim)
}
