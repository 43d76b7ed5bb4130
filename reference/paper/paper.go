// Package paper is the reference wing's part of the release evidence: what
// is the paper's own ("Failure injection as the primary evaluation" and
// its Python artefact, paper-188-typed-failure-injector.py), over the
// reference system (package copperfin), wired by cmd/faultline.
//
//   - [WriteText], [WriteJSON] and [Object] print an assay.Report as the
//     artefact prints it, byte for byte ("faultline assay --compat
//     paper188"), with [Interpretation] and [Boundary]; [Encode] writes
//     any value as the commands' JSON;
//   - [Audit] runs the reference profiles over the catalogue ("faultline
//     audit"): a [ProfileAudit] of [KindRow]s per profile and an assay of
//     [AuditTrials] trials with seed [AuditSeed]; [NoticeRows] adds the
//     runs of the provider's notices;
//   - [EvidenceConfig] is the evidence the audit and the dossier gather
//     (assay.Gather, assay.BuildDossier with copperfin.Definition), built
//     from [Stop], [Variation], [Compositions] and [Roles].
package paper
