/// Byte counts in binary units, as people read them.
package enum ByteSize {
  /// `66441` → `64.9 KiB`; below 1 KiB (negative sizes included) as `512 B`. With
  /// `wholeFrom100`, 100 units and more lose the tenth: `123 MiB`, not `123.4 MiB`.
  package static func text(_ bytes: Int64, wholeFrom100: Bool) -> String {
    if bytes < 1024 { return "\(bytes) B" }
    let units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    var value = Double(bytes) / 1024
    var unit = 0
    while value >= 1024 && unit < units.count - 1 {
      value /= 1024
      unit += 1
    }
    let tenths = Int((value * 10).rounded())
    if wholeFrom100 && (value >= 100 || tenths >= 1000) {
      return "\(Int(value.rounded())) \(units[unit])"
    }
    return "\(tenths / 10).\(tenths % 10) \(units[unit])"
  }
}
