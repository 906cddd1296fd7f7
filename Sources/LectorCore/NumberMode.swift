/// The `digits` option of `Speak`: how numbers in the text are read. See `NumberReading`.
///
/// ```swift
/// NumberMode(rawValue: "digits")   // .digits: "1234" is read "1 2 3 4"
/// ```
public enum NumberMode: String, Sendable, CaseIterable {
    /// As espeak-ng reads them ("1234" is one thousand two hundred thirty four).
    case number
    /// Digit by digit: order numbers, phone numbers, codes.
    case digits
    /// Amounts with a currency ("€35.20", "35.20元") read as money.
    case currency
}
