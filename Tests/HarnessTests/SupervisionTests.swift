import Foundation
import Synchronization
import Testing
import Imaging
import Vision
@testable import Harness

/// The supervised runner: time limits, stuck work, cancellation.
@Suite("Supervision")
struct SupervisionTests {
    @Test func stuckItemIsAbandonedAtItsLimitAndTheRunGoesOn() {
        let release = DispatchSemaphore(value: 0)
        let start = Date()
        let results: [String?] = superviseItems(
            count: 4, workers: 2, timeLimit: 0.3, abandonSlack: 0.1, cancellation: nil,
            work: { index, _, _ in
                // Item 1 never consults its stop check and blocks: a stage that does not return.
                if index == 1 { release.wait() }
                return .finished("done \(index)")
            },
            timedOut: { index, check in "timed out \(index) after \(check.limitSeconds)" },
            finished: { _ in })
        let elapsed = Date().timeIntervalSince(start)
        release.signal()  // lets the abandoned work end; its result is discarded
        #expect(results == ["done 0", "timed out 1 after 0.3", "done 2", "done 3"])
        #expect(elapsed < 3, "abandoned after limit + slack, not waited for: \(elapsed) s")
    }

    @Test func cooperativeItemStopsAtItsCheck() {
        let results: [String?] = superviseItems(
            count: 2, workers: 1, timeLimit: 0.05, cancellation: nil,
            work: { index, _, check in
                while check.reason() == nil { usleep(1000) }
                return .finished("\(index): \(check.reason()?.message ?? "")")
            },
            timedOut: { index, _ in "abandoned \(index)" },
            finished: { _ in })
        #expect(results == ["0: time limit of 0.05 s exceeded", "1: time limit of 0.05 s exceeded"])
    }

    @Test func cancellationStopsStartingItemsAndAbandonsRunningOnesAfterTheGrace() {
        let cancellation = RunCancellation(grace: 0.2)
        let started = Mutex<[Int]>([])
        let start = Date()
        let results: [Int?] = superviseItems(
            count: 20, workers: 2, timeLimit: nil, cancellation: cancellation,
            work: { index, _, check in
                started.withLock { $0.append(index) }
                if index < 3 { return .finished(index) }
                // Later items run until told the run is interrupted.
                while check.reason() == nil { usleep(1000) }
                return check.reason() == .interrupted ? .interrupted : .finished(index)
            },
            timedOut: { index, _ in -index },
            finished: { done in if done == 3 { cancellation.cancel(.bySignal(SIGINT)) } })
        let elapsed = Date().timeIntervalSince(start)
        #expect(Array(results.prefix(3)) == [0, 1, 2])
        #expect(results.dropFirst(3).allSatisfy { $0 == nil })
        #expect(started.withLock { $0.count } <= 5, "no item starts after the cancellation")
        #expect(elapsed < 3)
        #expect(cancellation.interruption == RunInterruption(signal: SIGINT, name: "SIGINT"))
    }

    @Test func interruptionCodesFollowTheShellConvention() {
        #expect(RunInterruption.bySignal(SIGINT).exitCode == 130)
        #expect(RunInterruption.bySignal(SIGTERM).exitCode == 143)
        #expect(RunInterruption.bySignal(SIGTERM).name == "SIGTERM")
        let c = RunCancellation(grace: 10)
        c.cancel(.bySignal(SIGTERM))
        c.cancel(.bySignal(SIGINT))
        #expect(c.interruption?.name == "SIGTERM", "the first request counts")
        #expect(!c.mustAbandon(), "in-flight work keeps its grace period")
        #expect(c.mustAbandon(now: StageClock.wall() + 11))
    }

    @Test func cancelledRunReportsOnlyFinishedFixturesAndFailsTheCompleteGate() throws {
        let d = try TestDataset.standard(name: "cancelled")
        defer { d.remove() }
        let cancellation = RunCancellation(grace: 0)
        cancellation.cancel(.bySignal(SIGINT))
        let report = try performRun(RunRequest(datasetRoot: d.root, labelsRoot: nil, settings: RunSettings(jobs: 2),
                                               toolVersion: "test"), cancellation: cancellation)
        #expect(report.outcomes.isEmpty)
        #expect(!report.complete)
        #expect(report.run.selectedCount == 5)
        #expect(report.exitCode == 130)
        #expect(!report.passed)
        #expect(report.gates.last?.name == "complete")
        #expect(report.gates.last?.passed == false)
        let violations = try loadSchema().validate(report.jsonValue)
        #expect(violations.isEmpty, "\(violations.prefix(5))")
        #expect(report.markdown.hasPrefix("## ⚠️ cellqa: INCOMPLETE run, interrupted by SIGINT after 0 of 5 fixtures"))
    }

    @Test func timeLimitInTheRunnerNamesTheFixture() throws {
        let d = try TestDataset.standard(name: "timelimit")
        defer { d.remove() }
        let fixture = RunFixture(id: "a", path: "a.png", imagePath: d.root + "/a.png", labelPath: d.root + "/a.json", group: "")
        let expired = FixtureStopCheck(deadline: StageClock.wall() - 1, limitSeconds: 2)
        let outcome = try #require(runFixture(fixture, pipeline: Pipeline(), settings: RunSettings(), worker: 0, runStart: 0,
                                              check: expired))
        #expect(outcome.status == .errored)
        #expect(outcome.error == d.root + "/a.png: time limit of 2 s exceeded")

        let cancellation = RunCancellation(grace: 0)
        cancellation.cancel(.bySignal(SIGTERM))
        let interrupted = runFixture(fixture, pipeline: Pipeline(), settings: RunSettings(), worker: 0, runStart: 0,
                                     check: FixtureStopCheck(cancellation: cancellation))
        #expect(interrupted == nil, "an interrupted fixture is not a result")
    }

    @Test func pipelineStopsBetweenStages() throws {
        let image = Image(width: 64, height: 48, pixels: [UInt8](repeating: 128, count: 64 * 48 * 3))
        var asked: [Int] = []
        #expect(throws: PipelineStopped.self) {
            _ = try Pipeline().run(image, shouldStop: {
                asked.append(asked.count)
                return asked.count == 3 ? "stop now" : nil
            })
        }
        #expect(asked.count == 3, "checked before each stage, stopped at the third")
        do {
            _ = try Pipeline().run(image, shouldStop: { "limit" })
        } catch let stop as PipelineStopped {
            #expect(stop.beforeStage == Pipeline().stages[0].name)
            #expect(stop.description == "limit (stopped before stage \(Pipeline().stages[0].name))")
        }
    }
}
