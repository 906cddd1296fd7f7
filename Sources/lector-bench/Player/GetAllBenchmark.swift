import Foundation
import LectorBus
#if canImport(Glibc)
import Glibc
#endif

/// Properties.GetAll("org.mpris.MediaPlayer2.Player") round trips, what a shell's media widget
/// does on every PropertiesChanged it cannot use directly: sequential from one connection, and
/// throughput from several threads, each with its own connection (sd-bus is not thread-safe).
struct GetAllFigures {
    /// Sequential round trips, microseconds.
    var sequential: [Double] = []
    var callsPerSecond: Double?
    var concurrentCalls = 0
    var concurrentSeconds = 0.0
    /// Round trips of every call made under load, microseconds.
    var concurrent: [Double] = []
    var clients = 0
    var errors = 0
    var firstError: String?
}

enum GetAllBenchmark {
    static func sequential(destination: String, calls: Int, warmUp: Int = 300) throws -> [Double] {
        let client = try BusClient(destination: destination)
        for _ in 0..<warmUp { try client.getAllPlayer() }
        var samples = [Double]()
        samples.reserveCapacity(calls)
        for _ in 0..<calls {
            let start = monotonicNanoseconds()
            try client.getAllPlayer()
            samples.append(Double(monotonicNanoseconds() - start) / 1000)
        }
        return samples
    }

    /// `clients` threads, each with its own Bus, call back to back for `seconds` after a common start.
    static func concurrent(destination: String, clients: Int, seconds: Double,
                           into figures: inout GetAllFigures) throws {
        final class Shared: @unchecked Sendable {
            let lock = NSLock()
            var latencies: [Double] = []
            var calls = 0
            var errors = 0
            var firstError: String?
            var lastEnd: UInt64 = 0
            var setupFailure: String?
            let ready = DispatchSemaphore(value: 0)
            let go = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            var start: UInt64 = 0
        }
        let shared = Shared()
        let duration = UInt64(seconds * 1_000_000_000)
        for index in 0..<clients {
            let thread = Thread {
                var client: BusClient?
                do {
                    client = try BusClient(destination: destination)
                    for _ in 0..<50 { try client!.getAllPlayer() }
                } catch {
                    shared.lock.withLock { shared.setupFailure = "client \(index): \(error)" }
                    client = nil
                }
                shared.ready.signal()
                shared.go.wait()
                var latencies = [Double]()
                latencies.reserveCapacity(40_000)
                var calls = 0, errors = 0
                var firstError: String?
                let deadline = shared.lock.withLock { shared.start } + duration
                var now = monotonicNanoseconds()
                if let client {
                    while now < deadline {
                        let before = now
                        do {
                            try client.getAllPlayer()
                            calls += 1
                        } catch {
                            errors += 1
                            if firstError == nil { firstError = "\(error)" }
                        }
                        now = monotonicNanoseconds()
                        latencies.append(Double(now - before) / 1000)
                    }
                }
                shared.lock.withLock {
                    shared.latencies += latencies
                    shared.calls += calls
                    shared.errors += errors
                    if shared.firstError == nil { shared.firstError = firstError }
                    shared.lastEnd = max(shared.lastEnd, now)
                }
                shared.done.signal()
            }
            thread.name = "getall-\(index)"
            thread.start()
        }
        for _ in 0..<clients { shared.ready.wait() }
        shared.lock.withLock { shared.start = monotonicNanoseconds() }
        for _ in 0..<clients { shared.go.signal() }
        for _ in 0..<clients { shared.done.wait() }
        if let failure = shared.setupFailure { throw BenchError("GetAll clients could not connect: \(failure)") }
        figures.clients = clients
        figures.concurrentCalls = shared.calls
        figures.concurrentSeconds = Double(shared.lastEnd - shared.start) / 1_000_000_000
        figures.callsPerSecond = Double(shared.calls) / figures.concurrentSeconds
        figures.concurrent = shared.latencies
        figures.errors += shared.errors
        if figures.firstError == nil { figures.firstError = shared.firstError }
    }
}
