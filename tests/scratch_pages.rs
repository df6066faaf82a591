use lectern::retrieval::pages::pages_from_text;
#[test]
fn scratch() {
    let data = std::fs::read(std::env::var("IN").unwrap()).unwrap();
    let page_chars = 1 + u16::from_be_bytes([data[0], data[1]]) as usize % 3000;
    let text = String::from_utf8_lossy(&data[2..]);
    println!("chars {} page {}", text.chars().count(), page_chars);
    for p in pages_from_text(&text, page_chars) {
        println!("--- {} chars {:?}", p.text.chars().count(), p.text);
    }
}
