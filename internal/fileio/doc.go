// Package fileio reads and writes faultline's files safely: bounded reads
// that refuse devices and FIFOs, and atomic, locked, durable writes.
//
// It is used only by this module's own packages and programs.
// Writing: [WriteAtomic], [WriteFiles], [Lock] and [Update]; [Sweep] and
// [Probe] clear what a killed writer left.
package fileio
