import CCodecs

/// The outcome of one CCodecs call: status, header fields and the library's message.
struct CodecCall {
    var status: Int32
    var info: cc_info
    var message: String

    /// Runs `body` with a message buffer and an info struct, collecting the outcome.
    static func run(_ body: (UnsafeMutablePointer<cc_info>, UnsafeMutablePointer<CChar>, Int) -> Int32) -> CodecCall {
        var info = cc_info()
        let capacity = Int(CC_MESSAGE_CAPACITY)
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer in
            guard let base = buffer.baseAddress else {
                return CodecCall(status: Int32(CC_ERR_NO_MEMORY), info: info, message: "no message buffer")
            }
            base.initialize(repeating: 0, count: capacity)
            let status = body(&info, base, capacity)
            return CodecCall(status: status, info: info, message: String(cString: base))
        }
    }

    /// The typed error for a failed call (nil when it succeeded).
    func error(format: ImageFormat, maxPixels: Int) -> ImageError? {
        switch Int(status) {
        case Int(CC_OK): return nil
        case Int(CC_ERR_TOO_LARGE):
            return .tooLarge(file: nil, format: format, width: Int(info.width), height: Int(info.height),
                             maxPixels: maxPixels)
        case Int(CC_ERR_TRUNCATED): return .truncated(file: nil, format: format, message: message)
        case Int(CC_ERR_NO_MEMORY): return .outOfMemory(file: nil, message: message)
        case Int(CC_ERR_UNSUPPORTED): return .unsupported(file: nil, format: format, message: message)
        case Int(CC_ERR_ARGUMENT): return .invalidArgument(message)
        case Int(CC_ERR_ENCODE): return .encodeFailed(format: format, message: message)
        default: return .corrupt(file: nil, format: format, message: message)
        }
    }
}
