import Foundation

/// Facts about the machine a run happened on, for reports.
public struct MachineFacts: Sendable, Equatable {
    public var cores: Int
    public var cpuModel: String
    public var os: String
    public var kernel: String

    public init(cores: Int, cpuModel: String, os: String, kernel: String) {
        self.cores = cores
        self.cpuModel = cpuModel
        self.os = os
        self.kernel = kernel
    }

    /// Reads /proc/cpuinfo, /etc/os-release and uname; unknown facts read "unknown".
    public static func current() -> MachineFacts {
        var cpu = "unknown"
        if let info = try? readSmallTextFile("/proc/cpuinfo") {
            for line in info.split(separator: "\n") where line.hasPrefix("model name") {
                if let colon = line.firstIndex(of: ":") {
                    cpu = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                break
            }
        }
        var os = "unknown"
        if let release = try? readSmallTextFile("/etc/os-release") {
            for line in release.split(separator: "\n") where line.hasPrefix("PRETTY_NAME=") {
                os = String(line.dropFirst("PRETTY_NAME=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        var name = utsname()
        uname(&name)
        let sys = withUnsafeBytes(of: &name.sysname) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let rel = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let machine = withUnsafeBytes(of: &name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return MachineFacts(cores: availableCores(), cpuModel: cpu, os: os, kernel: "\(sys) \(rel) \(machine)")
    }
}
