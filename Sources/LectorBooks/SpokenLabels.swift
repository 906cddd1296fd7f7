import LectorCore

/// The few words Lector says that are not the book's: the label before a note read out of its
/// place and before an image's description, in the book's language (by its primary subtag),
/// English when Lector has none for it. They are part of `Chapter.text` (the listener hears
/// them) but no run of the book's text, so the read-along page shows them without a highlight.
///
///     SpokenLabels(language: "de-AT").note    // "Anmerkung:"
///     SpokenLabels(language: "xx").image      // "Image:"
struct SpokenLabels: Sendable, Equatable {
    var note: String
    var image: String

    /// Primary subtag → (note, image).
    static let byLanguage: [String: (note: String, image: String)] = [
        "en": ("Note:", "Image:"),
        "de": ("Anmerkung:", "Bild:"),
        "fr": ("Note :", "Image :"),
        "es": ("Nota:", "Imagen:"),
        "it": ("Nota:", "Immagine:"),
        "pt": ("Nota:", "Imagem:"),
        "ca": ("Nota:", "Imatge:"),
        "ro": ("Notă:", "Imagine:"),
        "pl": ("Przypis:", "Obraz:"),
        "nl": ("Noot:", "Afbeelding:"),
        "sv": ("Not:", "Bild:"),
        "ru": ("Примечание:", "Изображение:"),
        "ja": ("注:", "画像:"),
        "zh": ("注：", "图片："),
    ]

    init(language: String?) {
        let primary = language.flatMap(LanguageTag.primary) ?? "en"
        let labels = Self.byLanguage[primary] ?? Self.byLanguage["en"]!
        note = labels.note
        image = labels.image
    }

    static let english = SpokenLabels(language: "en")
}
