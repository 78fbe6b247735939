/// The runs of a set of recording jobs (`record-1080p`, `segment-1080p`): every job once, then
/// again, `rounds` times, so a burst of load from elsewhere on the machine hits all rows alike;
/// each row reported by its median run by CPU.
///
/// A peer that fails (a missing gst element, an ffmpeg without libx264) is left out with the
/// reason; CaptureKit failing is the benchmark failing, so its error is thrown.
struct RecordRounds {
    /// The jobs, in row order.
    let jobs: [any RecordJob]
    /// Every successful run of each job, by job index.
    private(set) var runs: [[RecordRun]]
    /// Why a peer was left out, by job index.
    private(set) var skipped: [Int: String] = [:]

    /// Runs `jobs` `rounds` times interleaved. `measure` runs one job once and returns its run
    /// with whatever it probed in the output (and cleans that output up): the benchmarks
    /// differ in what they write and check, not in how they are scheduled.
    init(_ jobs: [any RecordJob], rounds: Int, measure: (any RecordJob) throws -> RecordRun) throws {
        self.jobs = jobs
        runs = [[RecordRun]](repeating: [], count: jobs.count)
        for _ in 0..<rounds {
            for (index, job) in jobs.enumerated() where skipped[index] == nil {
                do {
                    runs[index].append(try measure(job))
                } catch let error where job.tool != "CaptureKit" {
                    skipped[index] = "\(error)"
                }
            }
        }
    }

    /// The run of job `index` with the median CPU time; nil when it was skipped or never ran.
    func median(_ index: Int) -> RecordRun? {
        guard skipped[index] == nil, !runs[index].isEmpty else { return nil }
        return runs[index].sorted { $0.cpuSeconds < $1.cpuSeconds }[runs[index].count / 2]
    }

    /// A "skipped" note per left-out peer, in row order, naming the packages it needs.
    var skippedNotes: [String] {
        skipped.sorted { $0.key < $1.key }.map { index, reason in
            let packages = (jobs[index] as? RecordPeer).map { " (needs \($0.packages))" } ?? ""
            return "\(jobs[index].label): skipped, \(reason)\(packages)"
        }
    }

    /// A table row from a job's median run; frames are the video packets ffprobe counted.
    static func row(_ job: any RecordJob, _ run: RecordRun) -> Measurement {
        Measurement(label: job.label, tool: job.tool, frames: run.counts.video, delivered: nil,
                    dropped: run.droppedSamples, unaccounted: nil,
                    wallSeconds: run.wallSeconds, cpuSeconds: run.cpuSeconds,
                    peakRSSBytes: run.peakRSSBytes, peakRSSScope: run.peakRSSScope, cpuRatio: nil)
    }
}
