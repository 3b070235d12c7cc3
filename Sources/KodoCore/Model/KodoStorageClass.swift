package import StorageCore

/// Kodo's numbers for storage classes, object statuses and restore states, and back.
extension StorageClass {
  // String literals: copying an entry copies its class without reference counting (a listing
  // copies a million entries).
  private static let kodoClasses: [StorageClass] = [
    StorageClass(name: "standard", serviceName: "type 0"),
    StorageClass(name: "ia", serviceName: "type 1"),
    StorageClass(name: "archive", serviceName: "type 2"),
    StorageClass(name: "deep_archive", serviceName: "type 3"),
    StorageClass(name: "archive_ir", serviceName: "type 4"),
    StorageClass(name: "intelligent_tiering", serviceName: "type 5"),
  ]

  /// The class for Kodo's `type` number: `standard` (0), `ia` (1), `archive` (2),
  /// `deep_archive` (3), `archive_ir` (4), `intelligent_tiering` (5), else `type_N`.
  package static func kodo(type: Int) -> StorageClass {
    if kodoClasses.indices.contains(type) { return kodoClasses[type] }
    return StorageClass(name: "type_\(type)", serviceName: "type \(type)")
  }

  /// The contract's names of Kodo's classes, in Kodo's order.
  package static var kodoNames: [String] { kodoClasses.map(\.name) }

  /// Kodo's `type` number for a class given by the contract's name (or as Kodo's own value).
  package static func kodoType(named storageClass: StorageClass) -> Int? {
    kodoClasses.firstIndex { $0.name == storageClass.name } ?? storageClass.kodoType
  }

  /// Kodo's `type` number for the class (the inverse of `kodo(type:)`), when it is Kodo's.
  package var kodoType: Int? {
    guard let digits = WireText.dropping(prefix: "type ", from: serviceName),
      let number = Int(digits)
    else {
      return nil
    }
    return number
  }
}

extension ObjectStatus {
  /// The status for Kodo's `status` number (absent means enabled): 0 enabled, 1 disabled, else
  /// `status_N`.
  package static func kodo(code: Int) -> ObjectStatus {
    switch code {
    case 0: .enabled
    case 1: .disabled
    default: .unknown(code)
    }
  }
}

extension RestoreStatus {
  /// The state for Kodo's `restoreStatus` number: 1 restoring, 2 restored, else `status_N`.
  package static func kodo(code: Int) -> RestoreStatus {
    switch code {
    case 1: .restoring
    case 2: .restored
    default: .other("status_\(code)")
    }
  }
}
