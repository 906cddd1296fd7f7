/// Passages of real books in several scripts (all in the public domain), for the check that a
/// voice can read a book (`PronunciationCheck`): Japanese with kanji, Russian, Greek, English.
public enum ScriptSamples {
    /// Natsume Sōseki, 吾輩は猫である (1905), its opening: kanji among kana.
    public static let japanese = """
        吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所で\
        ニャーニャー泣いていた事だけは記憶している。吾輩はここで始めて人間というものを見た。しかもあとで聞くと\
        それは書生という人間中で一番獰悪な種族であったそうだ。この書生というのは時々我々を捕えて煮て食うという話である。
        """

    /// Leo Tolstoy, Анна Каренина (1878), its opening.
    public static let russian = """
        Все счастливые семьи похожи друг на друга, каждая несчастливая семья несчастлива по-своему. \
        Все смешалось в доме Облонских. Жена узнала, что муж был в связи с бывшею в их доме \
        француженкою-гувернанткой, и объявила мужу, что не может жить с ним в одном доме. \
        Положение это продолжалось уже третий день и мучительно чувствовалось и самими супругами, \
        и всеми членами семьи, и домочадцами.
        """

    /// Homer, Ὀδύσσεια, its first lines (in modern monotonic spelling).
    public static let greek = """
        Άνδρα μοι έννεπε, Μούσα, πολύτροπον, ος μάλα πολλά πλάγχθη, επεί Τροίης ιερόν πτολίεθρον έπερσε. \
        Πολλών δ' ανθρώπων ίδεν άστεα και νόον έγνω, πολλά δ' ο γ' εν πόντω πάθεν άλγεα ον κατά θυμόν.
        """

    /// Jane Austen, Pride and Prejudice (1813), its opening.
    public static let english = """
        It is a truth universally acknowledged, that a single man in possession of a good fortune, must be \
        in want of a wife. However little known the feelings or views of such a man may be on his first \
        entering a neighbourhood, this truth is so well fixed in the minds of the surrounding families, \
        that he is considered the rightful property of some one or other of their daughters.
        """

    /// Laozi, 道德經, chapter 1 (traditional characters).
    public static let chinese = """
        道可道，非常道。名可名，非常名。無名天地之始；有名萬物之母。故常無欲，以觀其妙；常有欲，以觀其徼。\
        此兩者，同出而異名，同謂之玄。玄之又玄，衆妙之門。
        """

    /// Genesis 1:1-2, without points.
    public static let hebrew = """
        בראשית ברא אלהים את השמים ואת הארץ והארץ היתה תהו ובהו וחשך על פני תהום ורוח אלהים מרחפת על פני המים
        """

    /// A plain Arabic sentence (the boy went to school in the morning and came home in the evening).
    public static let arabic = """
        ذهب الولد إلى المدرسة في الصباح وعاد إلى البيت في المساء بعد أن درس كثيرا مع أصدقائه في الفصل
        """
}
